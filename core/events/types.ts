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
