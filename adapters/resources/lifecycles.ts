/**
 * Published lifecycle versions, declared once (both dialects' tables, rows and SQL come from the
 * declaration). The newest version of an (organization, entity, key) is the one in force; an
 * organization with no `default` version follows the built-in default (core/lifecycles/defaults.ts).
 */
import type { LifecycleRepository } from "../../core/ports/storage.js";
import { defaultLifecycleKey, lifecycleEntities } from "../../core/lifecycles/types.js";
import type { LifecycleStatus, LifecycleTransition, StoredLifecycle } from "../../core/lifecycles/types.js";
import { enumOf, id, int, json, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";
import type { UnitState } from "../shared/unit-state.js";
import { definitionsWritten } from "./organization-counters.js";

export const lifecycleResource = defineResource({
  table: "lifecycles",
  noun: "A lifecycle version",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    entity: enumOf(lifecycleEntities),
    // Rows written before lifecycles were named are the organization's default one.
    key: text({ default: defaultLifecycleKey }),
    version: int(),
    statuses: json<LifecycleStatus[]>(),
    transitions: json<LifecycleTransition[]>(),
    mapping: json<Record<string, string>>(),
    createdAt: timestamp(),
    createdBy: text({ nullable: true }),
  },
  fixed: ["entity", "key", "version", "statuses", "transitions", "mapping", "createdAt", "createdBy"],
  // Two publishers racing for the same version: the second is refused, never a fork.
  unique: [{ name: "lifecycles_organization_id_entity_key_version_unique", columns: ["organizationId", "entity", "key", "version"], conflict: "This lifecycle version was published meanwhile; read it and publish again" }],
  // The versions of one lifecycle, newest first, are one range of this index (ids grow with versions).
  indexes: [{ name: "lifecycles_organization_id_entity_key_idx", columns: ["organizationId", "entity", "key", "id"] }],
  filters: { entity: { kind: "equals", column: "entity" }, key: { kind: "equals", column: "key" } },
});

/** Compile-time proof that the declaration stores exactly the core's StoredLifecycle. */
export const _lifecycleRecordMatches: Same<RecordOf<typeof lifecycleResource>, StoredLifecycle> = true;

/** A publish moves the organization's definitions version (triggers); the unit then reads it afresh. */
export function lifecycleRepository(lifecycles: DeclaredRepository<StoredLifecycle, FilterValues<typeof lifecycleResource>>, unit: UnitState): LifecycleRepository {
  return {
    async insert(record) {
      await lifecycles.insert(record);
      definitionsWritten(unit, record.organizationId);
    },
    async current(organizationId, entity, key) {
      const [newest] = await lifecycles.list(organizationId, { entity, key }, { limit: 1, order: "desc" });
      return newest ?? null;
    },
    versions: (organizationId, entity, key, page) => lifecycles.list(organizationId, { entity, key }, { limit: pageLimit(page), order: "desc", after: page.beforeId }),
    async currentAll(organizationId, entity) {
      // Versions are few (one per publication): the newest of each key, read newest first.
      const newest = new Map<string, StoredLifecycle>();
      let after: string | undefined;
      for (;;) {
        const page = await lifecycles.list(organizationId, { entity }, { limit: 500, order: "desc", after });
        for (const row of page) if (!newest.has(row.key)) newest.set(row.key, row);
        if (page.length < 500) return [...newest.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        after = page.at(-1)!.id;
      }
    },
  };
}
