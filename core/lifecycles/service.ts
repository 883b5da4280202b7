/**
 * Reading and publishing an organization's lifecycles. Anyone who may read the entity reads its
 * lifecycle; `org:admin` publishes a new version. Publishing moves the records of a status the
 * new version drops to the status the mapping names (with their history), so every record's
 * status is always a key of the lifecycle in force. Cases may follow named lifecycles besides
 * the default one (their type says which): each is versioned and remapped on its own, moving
 * only the cases that follow it (cases-following.ts).
 */
import { definitionsOf } from "../custom-fields/definitions.js";
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
import { allLifecyclesOf, findLifecycle, lifecycleOf } from "./current.js";
import { forCasesFollowing } from "./cases-following.js";
import { isCategory } from "./engine.js";
import { lifecycleEntitySchema, lifecycleKeySchema, lifecyclePublishSchema, lifecycleVersionQuerySchema } from "./schema.js";
import type { Lifecycle, LifecycleDefinition, LifecycleEntity, StoredLifecycle } from "./types.js";
import { defaultLifecycleKey } from "./types.js";
import { checkDefinition, checkMapping } from "./validate.js";
import type { Scope } from "../access/scopes.js";

/** A lifecycle as the API shows it: the built-in default has no stored row. */
export type LifecycleView = Lifecycle & { id: string | null; mapping: Record<string, string>; createdAt: string | null; createdBy: string | null };

const readScope: Record<LifecycleEntity, Scope> = { case: "cases:read", alert: "alerts:read", task: "tasks:read" };

const view = (lifecycle: Lifecycle | StoredLifecycle): LifecycleView => ({
  id: "id" in lifecycle ? lifecycle.id : null,
  entity: lifecycle.entity,
  key: lifecycle.key,
  version: lifecycle.version,
  statuses: lifecycle.statuses,
  transitions: lifecycle.transitions,
  mapping: "mapping" in lifecycle ? lifecycle.mapping : {},
  createdAt: "createdAt" in lifecycle ? lifecycle.createdAt : null,
  createdBy: "createdBy" in lifecycle ? lifecycle.createdBy : null,
});

/** Most named case lifecycles an organization may have (the list of them is one answer, not paged). */
export const maxNamedLifecycles = 50;

/** Records at most this many at a time are moved off a removed status. */
const remapPage = 500;

/** Publishing within a caller's unit of work: the lifecycle route and the configuration import share it. */
export function createLifecyclePublisher(deps: CaseKitDeps) {
  const { ids } = deps;

  /** The statuses among `keys` that some record following `lifecycle` is in. */
  async function inUse(tx: UnitOfWork, organizationId: string, lifecycle: Pick<Lifecycle, "entity" | "key">, keys: readonly string[]): Promise<Set<string>> {
    const used = new Set<string>();
    for (const key of keys) {
      if (lifecycle.entity === "case") {
        await forCasesFollowing(deps, tx, organizationId, lifecycle.key, key, async () => {
          used.add(key);
          return false;
        });
        continue;
      }
      const found =
        lifecycle.entity === "alert"
          ? await tx.alerts.list(organizationId, { maxTlp: 4, statusValue: [key], includeDeleted: true }, { limit: 1 })
          : await tx.tasks.list(organizationId, { maxTlp: 4, status: [key] }, { limit: 1 });
      if (found.length > 0) used.add(key);
    }
    return used;
  }

  /** Moves every record following `next` in `from` to `to`, page by page, each page's history in one append. */
  async function remap(tx: UnitOfWork, principal: Principal, next: Lifecycle, from: string, to: string, now: Date): Promise<void> {
    const org = principal.organizationId;
    const at = now.toISOString();
    const history = (moved: string[]) => recordStatusMoves(deps, tx, principal, next, moved.map((recordId) => ({ recordId, from, to })), now, "lifecycle remap");
    if (next.entity === "case") {
      const closing = isCategory(next, to, "closed");
      await forCasesFollowing(deps, tx, org, next.key, from, async (page) => {
        for (const record of page) await tx.cases.update({ ...record, statusValue: to, closedAt: closing ? (record.closedAt ?? at) : null, updatedAt: at });
        await history(page.map((record) => record.id));
      });
      return;
    }
    for (;;) {
      let moved: string[];
      if (next.entity === "alert") {
        const page = await tx.alerts.list(org, { maxTlp: 4, statusValue: [from], includeDeleted: true }, { limit: remapPage });
        for (const record of page) await tx.alerts.update({ ...record, statusValue: to, updatedAt: at });
        moved = page.map((record) => record.id);
      } else {
        const page = await tx.tasks.list(org, { maxTlp: 4, status: [from] }, { limit: remapPage });
        // One patch for the page (the status alone changes: the value rows stay as they are).
        if (page.length > 0) await tx.tasks.patchMany(org, page.map((record) => record.id), { status: to, updatedAt: at });
        moved = page.map((record) => record.id);
      }
      await history(moved);
      if (moved.length < remapPage) return;
    }
  }

  /**
   * Publishes `body` (already parsed and checked by checkDefinition) as the next version of the
   * lifecycle `key` (a named case lifecycle's first version creates it).
   */
  async function publishWithin(
    tx: UnitOfWork,
    principal: Principal,
    entity: LifecycleEntity,
    body: LifecycleDefinition & { mapping: Record<string, string> },
    now: Date,
    key: string = defaultLifecycleKey,
  ): Promise<StoredLifecycle> {
    // Every write of a case, alert or task holds the organization's TLP chain head until its
    // unit ends (core/audit/record-edit.ts); holding it here too means no record is written in
    // a status this version drops between the check of statuses in use and the remap.
    await tx.tlpAudit.head(principal.organizationId);
    // A field:customFields.<key> gate names a field defined for the entity (entering-rules.ts); the
    // configuration import may have written fields in this unit, which the cache then reads.
    const gateErrors = fieldGateProblems(entity, body, await definitionsOf(deps, tx, principal.organizationId));
    if (gateErrors.length > 0) throw new CaseKitError("invalid_lifecycle", `${gateErrors[0]!.path}: ${gateErrors[0]!.message}`, gateErrors);
    const before = await findLifecycle(deps, tx, principal.organizationId, entity, key);
    if (!before && (await allLifecyclesOf(deps, tx, principal.organizationId, entity)).length > maxNamedLifecycles) {
      throw new CaseKitError("conflict", `An organization has at most ${maxNamedLifecycles} named ${entity} lifecycles`);
    }
    const keys = new Set(body.statuses.map((status) => status.key));
    const removed = (before?.statuses ?? []).map((status) => status.key).filter((status) => !keys.has(status));
    checkMapping(body.mapping, removed, await inUse(tx, principal.organizationId, { entity, key }, removed), keys);
    const record: StoredLifecycle = {
      id: ids.next("lcy"),
      organizationId: principal.organizationId,
      entity,
      key,
      version: (before?.version ?? 0) + 1,
      statuses: body.statuses,
      transitions: body.transitions,
      mapping: body.mapping,
      createdAt: now.toISOString(),
      createdBy: principal.userId,
    };
    await tx.lifecycles.insert(record);
    for (const [from, to] of Object.entries(body.mapping)) await remap(tx, principal, record, from, to, now);
    await recordChange(deps, tx, principal, { name: "lifecycle.published", resourceType: "lifecycle", before: before && "id" in before ? (before as StoredLifecycle) : null, after: record, tlp: null, now });
    return record;
  }

  return { publishWithin };
}

export function createLifecycleService(deps: CaseKitDeps) {
  const { storage, clock } = deps;
  const { publishWithin } = createLifecyclePublisher(deps);

  return {
    /** The lifecycle `key` of the entity (`default` unless a named case lifecycle): 404 when never published. */
    async get(principal: Principal, entityInput: string, keyInput: string = defaultLifecycleKey): Promise<LifecycleView> {
      const entity = parse(lifecycleEntitySchema, entityInput);
      const key = parse(lifecycleKeySchema, keyInput);
      requireScope(principal, readScope[entity]);
      return view(await storage.read((tx) => lifecycleOf(deps, tx, principal.organizationId, entity, key)));
    },

    /** The organization's case lifecycles in force: the default one, then the named ones by key (at most maxNamedLifecycles: one page). */
    async listCase(principal: Principal): Promise<{ data: LifecycleView[]; nextCursor: null }> {
      requireScope(principal, readScope.case);
      return { data: (await storage.read((tx) => allLifecyclesOf(deps, tx, principal.organizationId, "case"))).map(view), nextCursor: null };
    },

    async versions(principal: Principal, entityInput: string, query: unknown, keyInput: string = defaultLifecycleKey): Promise<{ data: LifecycleView[]; nextCursor: string | null }> {
      const entity = parse(lifecycleEntitySchema, entityInput);
      const key = parse(lifecycleKeySchema, keyInput);
      requireScope(principal, readScope[entity]);
      const { limit, cursor } = parse(lifecycleVersionQuerySchema, query);
      const rows = await storage.read(async (tx) => {
        // A named lifecycle never published is unknown (the default always exists).
        await lifecycleOf(deps, tx, principal.organizationId, entity, key);
        return tx.lifecycles.versions(principal.organizationId, entity, key, { limit: limit + 1, beforeId: decodeCursor(cursor) });
      });
      const page = toPage(rows, limit);
      return { data: page.data.map(view), nextCursor: page.nextCursor };
    },

    /** Publishes the next version of the lifecycle `key`; a named case lifecycle's first version creates it. */
    async publish(principal: Principal, entityInput: string, input: unknown, keyInput: string = defaultLifecycleKey): Promise<LifecycleView> {
      const entity = parse(lifecycleEntitySchema, entityInput);
      const key = parse(lifecycleKeySchema, keyInput);
      requireScope(principal, "org:admin");
      if (entity !== "case" && key !== defaultLifecycleKey) throw new CaseKitError("not_found", `Only cases have named lifecycles: no ${entity} lifecycle ${key}`);
      const body = parse(lifecyclePublishSchema, input);
      checkDefinition(entity, body);
      const now = clock.now();
      return view(await storage.transaction((tx) => publishWithin(tx, principal, entity, body, now, key)));
    },
  };
}

export type LifecycleService = ReturnType<typeof createLifecycleService>;
