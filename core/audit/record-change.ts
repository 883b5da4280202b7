import type { Principal } from "../access/principal.js";
import type { AuditEntry } from "./types.js";
import type { DomainEvent } from "../events/types.js";
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

/** The changes of one bulk operation: one kind of record, one event name, one bulk request. */
export interface BulkChanges<T extends { id: string }> {
  name: string;
  resourceType: string;
  bulkRequestId: string;
  now: Date;
  changes: readonly { before: T; after: T; tlp: number | null }[];
}

/**
 * recordChange for every record of a bulk operation at once: ONE audit entry and ONE event, each
 * listing the records (core/log/groups.ts), so the write path pays two rows, not two per record.
 * Readers see one entry and one event per record, exactly as recordChange writes them.
 */
export async function recordBulkChanges<T extends { id: string }>(deps: Pick<CaseKitDeps, "ids">, tx: UnitOfWork, actor: Principal, bulk: BulkChanges<T>): Promise<void> {
  if (bulk.changes.length === 0) return;
  const { entry, event } = recordsOf(deps, actor, { name: bulk.name, resourceType: bulk.resourceType, before: null, after: { id: bulk.bulkRequestId }, tlp: null, bulkRequestId: bulk.bulkRequestId, now: bulk.now });
  await tx.audit.append({ ...entry, items: bulk.changes.map(({ before, after }) => ({ resourceId: after.id, changes: diff(before, after) })) });
  await tx.events.append({ ...event, payload: {}, items: bulk.changes.map(({ after, tlp }) => ({ resourceId: after.id, tlp, payload: { ...after } as Record<string, unknown> })) });
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
    // The same value (or the same object) needs no serialising: bulk operations diff many records.
    if (unaudited.has(key) || a[key] === b[key]) continue;
    if (canonical(a[key]) !== canonical(b[key])) changes[key] = { from: a[key] ?? null, to: b[key] ?? null };
  }
  return changes;
}

/** JSON with object keys sorted: storage may reorder keys (PostgreSQL's jsonb does), values stay equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}
