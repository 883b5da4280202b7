import type { Principal } from "../access/principal.js";
import type { AuditItem, NewAuditEvent } from "./types.js";
import type { DomainEvent, EventItem } from "../events/types.js";
import type { CaseKitDeps } from "../context.js";
import type { GroupItemsWriter, UnitOfWork } from "../ports/storage.js";
import { newAuditEvent } from "./record-event.js";
import { diffChanges, removedChanges } from "./changes.js";
import { caseOfRecord, caseOfTarget } from "./case-of.js";

export interface Change<T extends { id: string }> {
  /** `<resource>.<verb>`, e.g. `case.created`. */
  name: string;
  resourceType: string;
  before: T | null;
  after: T;
  tlp: number | null;
  bulkRequestId?: string;
  now: Date;
  /** The case the record lives in, where the record does not name it (by default: read from it, core/audit/case-of.ts). */
  caseId?: string;
  /** The record is deleted for good (`after` is what it was): its event lists every value, after null. */
  gone?: boolean;
}

/**
 * Writes the audit event and the outbox event of one change, inside the caller's unit of work,
 * so the change, its audit event and its outbox event commit together or not at all. Resolves
 * with the outbox event's id (the webhook test delivery names it).
 */
export async function recordChange<T extends { id: string }>(
  deps: Pick<CaseKitDeps, "ids">,
  tx: UnitOfWork,
  actor: Principal,
  change: Change<T>,
): Promise<string> {
  const caseId = change.caseId ?? (await caseOfTarget(tx, actor.organizationId, change.resourceType, change.after));
  const { entry, event } = recordsOf(deps, actor, change, caseId);
  await tx.audit.append(entry);
  await tx.events.append(event);
  return event.id;
}

/** The log rows of one bulk operation: one kind of record, one event name, one bulk request. */
export interface BulkChanges {
  name: string;
  resourceType: string;
  bulkRequestId: string;
  now: Date;
  /** Each changed record's audit item (bulkItemsOf, page by page): what the entry's hash covers. */
  audit: readonly AuditItem[];
  /**
   * The writers the same records' event and audit items went to, in the same order, page by page
   * (bulkWritersOf): a selectAll's 100 000 event payloads are not held until the end, and its
   * audit items are stored while the pages' statements run, not after the last one.
   */
  writers: BulkWriters;
}

/** The outbox event and the audit entry of a bulk operation, their items written as the pages are saved. */
export interface BulkWriters {
  eventId: string;
  eventItems: GroupItemsWriter<EventItem>;
  auditId: string;
  auditItems: GroupItemsWriter<AuditItem>;
}

/** Where a bulk operation's event and audit items go as it saves its pages (recordBulkChanges appends the rows). */
export function bulkWritersOf(deps: Pick<CaseKitDeps, "ids">, tx: UnitOfWork, actor: Principal): BulkWriters {
  const eventId = deps.ids.next("evt");
  const auditId = deps.ids.next("aud");
  return { eventId, eventItems: tx.events.groupItems(actor.organizationId, eventId), auditId, auditItems: tx.audit.groupItems(actor.organizationId, auditId) };
}

/**
 * The audit item and event item of one record a bulk operation changed. A bulk builds them page
 * by page, as it saves each page, so the work is spread between the storage calls where the
 * unit gives the event loop its turns, not left for one stretch at the end.
 */
export function bulkItemsOf<T extends { id: string }>(before: T, after: T, tlp: number | null, resourceType?: string): { audit: AuditItem; event: EventItem } {
  const caseId = caseOfRecord(resourceType ?? "", after) ?? null;
  return {
    audit: { resourceId: after.id, caseId, tlp, changes: diffChanges(before, after) },
    // The changed record itself, not a copy: the bulk made it (apply) and nothing changes it after.
    event: { resourceId: after.id, tlp, payload: after as unknown as Record<string, unknown> },
  };
}

/**
 * recordChange for every record of a bulk operation at once: ONE audit row and ONE outbox event,
 * each listing the records (core/log/groups.ts), so the write path pays two rows, not two per
 * record. The audit row takes one chain position per record (seq … seq+n−1), so readers see one
 * event per record, with its own position, exactly as recordChange writes them.
 */
export async function recordBulkChanges(deps: Pick<CaseKitDeps, "ids">, tx: UnitOfWork, actor: Principal, bulk: BulkChanges): Promise<void> {
  // The audit writer's count is checked where its row is appended (AuditRepository.appendGroup).
  if (bulk.writers.eventItems.count !== bulk.audit.length) throw new Error("casekit: a bulk's audit and event items must list the same records");
  // Nothing added, nothing written (the writer writes rows only past a chunk's worth of items).
  if (bulk.audit.length === 0) return;
  // The group names a case when all its records live in the same one, so a case's trail finds it
  // by index. A loop that stops at the first other case, not a set of 100 000 (one stretch of 12 ms).
  let shared = bulk.audit[0]!.caseId ?? null;
  for (const item of bulk.audit) {
    if ((item.caseId ?? null) !== shared) {
      shared = null;
      break;
    }
  }
  const { entry, event } = recordsOf(
    deps,
    actor,
    { name: bulk.name, resourceType: bulk.resourceType, before: null, after: { id: bulk.bulkRequestId }, tlp: null, bulkRequestId: bulk.bulkRequestId, now: bulk.now },
    shared ?? undefined,
    bulk.writers.eventId,
  );
  // The entry takes the id its items were written under; the chain hashes the items themselves.
  await tx.audit.appendGroup({ ...entry, id: bulk.writers.auditId, items: bulk.audit }, bulk.writers.auditItems);
  await tx.events.appendGroup({ ...event, payload: {} }, bulk.writers.eventItems);
}

/** The audit event and the outbox event of one change. */
function recordsOf<T extends { id: string }>(deps: Pick<CaseKitDeps, "ids">, actor: Principal, change: Change<T>, caseId: string | undefined, eventId?: string): { entry: NewAuditEvent; event: DomainEvent } {
  // A change always happens inside the actor's organization: tenant isolation by construction.
  const organizationId = actor.organizationId;
  const at = change.now.toISOString();
  const entry = newAuditEvent(deps, {
    organizationId,
    actor,
    action: change.name,
    target: caseId === undefined ? { type: change.resourceType, id: change.after.id } : { type: change.resourceType, id: change.after.id, caseId },
    outcome: "success",
    changes: change.gone ? removedChanges(change.after) : change.before ? diffChanges(change.before, change.after) : [],
    bulkRequestId: change.bulkRequestId ?? null,
    tlp: change.tlp,
    now: change.now,
  });
  const event: DomainEvent = {
    id: eventId ?? deps.ids.next("evt"),
    organizationId,
    name: change.name,
    resourceType: change.resourceType,
    resourceId: change.after.id,
    payload: { ...change.after } as Record<string, unknown>,
    tlp: change.tlp,
    bulkRequestId: change.bulkRequestId ?? null,
    occurredAt: at,
  };
  return { entry, event };
}
