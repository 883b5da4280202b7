/**
 * Reading and publishing an organization's lifecycles. Anyone who may read the entity reads its
 * lifecycle; `org:admin` publishes a new version. Publishing moves the records of a status the
 * new version drops to the status the mapping names (with their history), so every record's
 * status is always a key of the lifecycle in force.
 */
import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { recordChange } from "../audit/record-change.js";
import type { CaseKitDeps } from "../context.js";
import { recordStatusMoves } from "../history/record.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";
import { fieldGateProblems } from "../custom-fields/entering-rules.js";
import { CaseKitError } from "../errors.js";
import { lifecycleOf } from "./current.js";
import { isCategory } from "./engine.js";
import { lifecycleEntitySchema, lifecyclePublishSchema, lifecycleVersionQuerySchema } from "./schema.js";
import type { Lifecycle, LifecycleDefinition, LifecycleEntity, StoredLifecycle } from "./types.js";
import { checkDefinition, checkMapping } from "./validate.js";
import type { Scope } from "../access/scopes.js";

/** A lifecycle as the API shows it: the built-in default has no stored row. */
export type LifecycleView = Lifecycle & { id: string | null; mapping: Record<string, string>; createdAt: string | null; createdBy: string | null };

const readScope: Record<LifecycleEntity, Scope> = { case: "cases:read", alert: "alerts:read", task: "tasks:read" };

const view = (lifecycle: Lifecycle | StoredLifecycle): LifecycleView => ({
  id: "id" in lifecycle ? lifecycle.id : null,
  entity: lifecycle.entity,
  version: lifecycle.version,
  statuses: lifecycle.statuses,
  transitions: lifecycle.transitions,
  mapping: "mapping" in lifecycle ? lifecycle.mapping : {},
  createdAt: "createdAt" in lifecycle ? lifecycle.createdAt : null,
  createdBy: "createdBy" in lifecycle ? lifecycle.createdBy : null,
});

/** Records at most this many at a time are moved off a removed status. */
const remapPage = 500;

/** Publishing within a caller's unit of work: the lifecycle route and the configuration import share it. */
export function createLifecyclePublisher(deps: CaseKitDeps) {
  const { ids } = deps;

  /** The statuses among `keys` that some record of the organization is in. */
  async function inUse(tx: UnitOfWork, organizationId: string, entity: LifecycleEntity, keys: readonly string[]): Promise<Set<string>> {
    const used = new Set<string>();
    for (const key of keys) {
      const found =
        entity === "case"
          ? await tx.cases.list(organizationId, { maxTlp: 4, statusValue: [key] }, { limit: 1 })
          : entity === "alert"
            ? await tx.alerts.list(organizationId, { maxTlp: 4, statusValue: [key], includeDeleted: true }, { limit: 1 })
            : await tx.tasks.list(organizationId, { maxTlp: 4, status: [key] }, { limit: 1 });
      if (found.length > 0) used.add(key);
    }
    return used;
  }

  /** Moves every record in `from` to `to`, page by page, each page's history in one append. */
  async function remap(tx: UnitOfWork, principal: Principal, next: Lifecycle, from: string, to: string, now: Date): Promise<void> {
    const org = principal.organizationId;
    const at = now.toISOString();
    for (;;) {
      let moved: string[];
      if (next.entity === "case") {
        const page = await tx.cases.list(org, { maxTlp: 4, statusValue: [from] }, { limit: remapPage });
        const closing = isCategory(next, to, "closed");
        for (const record of page) await tx.cases.update({ ...record, statusValue: to, closedAt: closing ? (record.closedAt ?? at) : null, updatedAt: at });
        moved = page.map((record) => record.id);
      } else if (next.entity === "alert") {
        const page = await tx.alerts.list(org, { maxTlp: 4, statusValue: [from], includeDeleted: true }, { limit: remapPage });
        for (const record of page) await tx.alerts.update({ ...record, statusValue: to, updatedAt: at });
        moved = page.map((record) => record.id);
      } else {
        const page = await tx.tasks.list(org, { maxTlp: 4, status: [from] }, { limit: remapPage });
        if (page.length > 0) await tx.tasks.updateMany(page.map((record) => ({ ...record, status: to, updatedAt: at })));
        moved = page.map((record) => record.id);
      }
      await recordStatusMoves(deps, tx, principal, next, moved.map((recordId) => ({ recordId, from, to })), now, "lifecycle remap");
      if (moved.length < remapPage) return;
    }
  }

  /** Publishes `body` (already parsed and checked by checkDefinition) as the next version. */
  async function publishWithin(tx: UnitOfWork, principal: Principal, entity: LifecycleEntity, body: LifecycleDefinition & { mapping: Record<string, string> }, now: Date): Promise<StoredLifecycle> {
    // Every write of a case, alert or task holds the organization's TLP chain head until its
    // unit ends (core/audit/record-edit.ts); holding it here too means no record is written in
    // a status this version drops between the check of statuses in use and the remap.
    await tx.tlpAudit.head(principal.organizationId);
    // A field:customFields.<key> gate names a field defined for the entity (entering-rules.ts). Read
    // directly, not through definitionsOf: the configuration import writes fields in this unit.
    const gateErrors = fieldGateProblems(entity, body, await tx.customFields.listAll(principal.organizationId));
    if (gateErrors.length > 0) throw new CaseKitError("invalid_lifecycle", `${gateErrors[0]!.path}: ${gateErrors[0]!.message}`, gateErrors);
    const before = await lifecycleOf(tx, principal.organizationId, entity);
    const keys = new Set(body.statuses.map((status) => status.key));
    const removed = before.statuses.map((status) => status.key).filter((key) => !keys.has(key));
    checkMapping(body.mapping, removed, await inUse(tx, principal.organizationId, entity, removed), keys);
    const record: StoredLifecycle = {
      id: ids.next("lcy"),
      organizationId: principal.organizationId,
      entity,
      version: before.version + 1,
      statuses: body.statuses,
      transitions: body.transitions,
      mapping: body.mapping,
      createdAt: now.toISOString(),
      createdBy: principal.userId,
    };
    await tx.lifecycles.insert(record);
    for (const [from, to] of Object.entries(body.mapping)) await remap(tx, principal, record, from, to, now);
    await recordChange(deps, tx, principal, { name: "lifecycle.published", resourceType: "lifecycle", before: "id" in before ? (before as StoredLifecycle) : null, after: record, tlp: null, now });
    return record;
  }

  return { publishWithin };
}

export function createLifecycleService(deps: CaseKitDeps) {
  const { storage, clock } = deps;
  const { publishWithin } = createLifecyclePublisher(deps);

  return {
    async get(principal: Principal, entityInput: string): Promise<LifecycleView> {
      const entity = parse(lifecycleEntitySchema, entityInput);
      requireScope(principal, readScope[entity]);
      return view(await storage.read((tx) => lifecycleOf(tx, principal.organizationId, entity)));
    },

    async versions(principal: Principal, entityInput: string, query: unknown): Promise<{ data: LifecycleView[]; nextCursor: string | null }> {
      const entity = parse(lifecycleEntitySchema, entityInput);
      requireScope(principal, readScope[entity]);
      const { limit, cursor } = parse(lifecycleVersionQuerySchema, query);
      const rows = await storage.read((tx) => tx.lifecycles.versions(principal.organizationId, entity, { limit: limit + 1, beforeId: decodeCursor(cursor) }));
      const page = toPage(rows, limit);
      return { data: page.data.map(view), nextCursor: page.nextCursor };
    },

    async publish(principal: Principal, entityInput: string, input: unknown): Promise<LifecycleView> {
      const entity = parse(lifecycleEntitySchema, entityInput);
      requireScope(principal, "org:admin");
      const body = parse(lifecyclePublishSchema, input);
      checkDefinition(entity, body);
      const now = clock.now();
      return view(await storage.transaction((tx) => publishWithin(tx, principal, entity, body, now)));
    },
  };
}

export type LifecycleService = ReturnType<typeof createLifecycleService>;
