/**
 * A domain event in the transactional outbox: written in the unit of work that makes the change,
 * so a rolled-back change emits nothing and a committed one is never lost. Delivery (webhooks)
 * reads from here.
 */
export interface DomainEvent {
  id: string;
  organizationId: string;
  /** `<resource>.<verb>`, e.g. `case.created`. */
  name: string;
  resourceType: string;
  resourceId: string;
  /** The record after the change. */
  payload: Record<string, unknown>;
  /** TLP of the record, so delivery can re-check clearance without reading the record. */
  tlp: number | null;
  bulkRequestId: string | null;
  occurredAt: string;
}

/** One record of a group event: its id, its effective TLP and the record after the change. */
export interface EventItem {
  resourceId: string;
  tlp: number | null;
  payload: Record<string, unknown>;
}

/**
 * One event written for many records at once (a bulk operation): stored as one row (its own
 * `resourceId` is the bulk request id, its payload `{}`). Readers, the webhook dispatcher first,
 * see one DomainEvent per item with the id `<group id>.<position>` (core/log/groups.ts): each is
 * fanned out, filtered and TLP-checked at send time like any event.
 */
export type GroupEvent = DomainEvent & { items: readonly EventItem[] };
