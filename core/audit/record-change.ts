import type { Principal } from "../access/principal.js";
import type { AuditEntry, AuditItem } from "./types.js";
import type { DomainEvent, EventItem } from "../events/types.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";

export interface Change<T extends { id: string }> {
  /** `<resource>.<verb>`, e.g. `case.created`. */
  name: string;
  resourceType: string;
  before: T | null;
  after: T;
  tlp: number | null;
  bulkRequestId?: string;
  now: Date;
}

/**
 * Writes the audit entry and the outbox event of one change, inside the caller's unit of work,
 * so the change, its audit entry and its event commit together or not at all. Resolves with the
 * event's id (the webhook test delivery names it).
 */
export async function recordChange<T extends { id: string }>(
  deps: Pick<CaseKitDeps, "ids">,
  tx: UnitOfWork,
  actor: Principal,
  change: Change<T>,
): Promise<string> {
  const { entry, event } = recordsOf(deps, actor, change);
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
  /** Each changed record's audit item and event item, in the same order (bulkItemsOf, page by page). */
  audit: readonly AuditItem[];
  events: readonly EventItem[];
}

/**
 * The audit item and event item of one record a bulk operation changed. A bulk builds them page
 * by page, as it saves each page, so the work is spread between the storage calls where the
 * unit gives the event loop its turns, not left for one stretch at the end.
 */
export function bulkItemsOf<T extends { id: string }>(before: T, after: T, tlp: number | null): { audit: AuditItem; event: EventItem } {
  return { audit: { resourceId: after.id, changes: diff(before, after) }, event: { resourceId: after.id, tlp, payload: { ...after } as Record<string, unknown> } };
}

/**
 * recordChange for every record of a bulk operation at once: ONE audit entry and ONE event, each
 * listing the records (core/log/groups.ts), so the write path pays two rows, not two per record.
 * Readers see one entry and one event per record, exactly as recordChange writes them.
 */
export async function recordBulkChanges(deps: Pick<CaseKitDeps, "ids">, tx: UnitOfWork, actor: Principal, bulk: BulkChanges): Promise<void> {
  if (bulk.events.length === 0) return;
  const { entry, event } = recordsOf(deps, actor, { name: bulk.name, resourceType: bulk.resourceType, before: null, after: { id: bulk.bulkRequestId }, tlp: null, bulkRequestId: bulk.bulkRequestId, now: bulk.now });
  await tx.audit.append({ ...entry, items: bulk.audit });
  await tx.events.append({ ...event, payload: {}, items: bulk.events });
}

/** The audit entry and the outbox event of one change. */
function recordsOf<T extends { id: string }>(deps: Pick<CaseKitDeps, "ids">, actor: Principal, change: Change<T>): { entry: AuditEntry; event: DomainEvent } {
  // A change always happens inside the actor's organization: tenant isolation by construction.
  const organizationId = actor.organizationId;
  const at = change.now.toISOString();
  const entry: AuditEntry = {
    id: deps.ids.next("aud"),
    organizationId,
    actorUserId: actor.userId,
    actorKeyId: actor.keyId,
    action: change.name,
    resourceType: change.resourceType,
    resourceId: change.after.id,
    changes: change.before ? diff(change.before, change.after) : null,
    requestId: actor.origin?.requestId ?? null,
    ip: actor.origin?.ip ?? null,
    userAgent: actor.origin?.userAgent ?? null,
    at,
    bulkRequestId: change.bulkRequestId ?? null,
  };
  const event: DomainEvent = {
    id: deps.ids.next("evt"),
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

const unaudited = new Set(["updatedAt"]);

function diff(before: object, after: object): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  for (const key of Object.keys(b)) {
    // The same value (or the same object) needs no serialising, nor do two values one of which is
    // no object (they differ as they are): bulk operations diff many records.
    if (unaudited.has(key) || a[key] === b[key]) continue;
    if (!isObject(a[key]) || !isObject(b[key]) || canonical(a[key]) !== canonical(b[key])) changes[key] = { from: a[key] ?? null, to: b[key] ?? null };
  }
  return changes;
}

const isObject = (value: unknown): boolean => value !== null && typeof value === "object";

/** JSON with object keys sorted: storage may reorder keys (PostgreSQL's jsonb does), values stay equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}
