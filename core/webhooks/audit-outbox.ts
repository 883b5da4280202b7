import type { AuditEvent } from "../audit/types.js";
import type { IdGenerator } from "../ports/ids.js";
import type { DomainEvent } from "../events/types.js";
import type { UnitOfWork } from "../ports/storage.js";
import { auditKindPrefix } from "./schema.js";

/** The resource type of the outbox events that carry an audit event. */
export const auditEventResourceType = "audit_event";

/**
 * The cursor that says how far an organization's audit events were written to its outbox: a row of
 * the audit sinks' persisted cursors (one per reader, keyed by its id), so nothing new is stored.
 */
export function auditOutboxCursorId(organizationId: string): string {
  return `webhooks-audit:${organizationId}`;
}

/**
 * The outbox event that carries one audit event to webhook subscriptions: named `audit.<action>`,
 * marked with the audit event's TLP, its payload the whole event (redacted per subscription when
 * the delivery is sent: core/webhooks/event-view.ts).
 */
export function auditOutboxEvent(audit: AuditEvent, id: string): DomainEvent {
  return {
    id,
    organizationId: audit.organizationId,
    name: `${auditKindPrefix}${audit.action}`,
    resourceType: auditEventResourceType,
    resourceId: audit.id,
    payload: audit as unknown as Record<string, unknown>,
    tlp: audit.tlp,
    bulkRequestId: audit.bulkRequestId,
    occurredAt: audit.at,
  };
}

/**
 * Moves one organization's audit events into its outbox, in the caller's unit of work: the events
 * after its cursor (at most `limit`, oldest first) become outbox events and the cursor moves past
 * them, committing together (nothing lost, nothing doubled). `subscribed`: whether an active
 * subscription there names an audit kind. Without one the cursor is cleared, so the next such
 * subscription starts from the head of the log, as a new one does (an organization's log is never
 * empty by then: creating the subscription wrote an audit event). Answers how many it wrote.
 */
export async function pullAuditEvents(tx: UnitOfWork, ids: IdGenerator, organizationId: string, subscribed: boolean, limit: number, now: string): Promise<number> {
  const cursorId = auditOutboxCursorId(organizationId);
  // Held: a second dispatcher (another host) waits here, then reads where this one left it.
  const cursor = await tx.auditSinks.heldCursor(organizationId, cursorId);
  if (!subscribed) {
    if (cursor !== 0) await tx.auditSinks.setCursor(organizationId, cursorId, 0, now);
    return 0;
  }
  if (cursor === 0) {
    await tx.auditSinks.setCursor(organizationId, cursorId, (await tx.audit.head(organizationId)).seq, now);
    return 0;
  }
  const events = await tx.audit.pageAfter(organizationId, cursor, limit);
  if (events.length === 0) return 0;
  await tx.events.appendMany(events.map((audit) => auditOutboxEvent(audit, ids.next("evt"))));
  await tx.auditSinks.setCursor(organizationId, cursorId, events.at(-1)!.seq, now);
  return events.length;
}
