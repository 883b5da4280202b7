/**
 * Published lifecycle versions, declared once (both dialects' tables, rows and SQL come from the
 * declaration). The newest version of an (organization, entity) is the one in force; an
 * organization with none follows the built-in default (core/lifecycles/defaults.ts).
 */
import type { LifecycleRepository } from "../../core/ports/storage.js";
import { lifecycleEntities } from "../../core/lifecycles/types.js";
import type { LifecycleStatus, LifecycleTransition, StoredLifecycle } from "../../core/lifecycles/types.js";
import { enumOf, id, int, json, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";

export const lifecycleResource = defineResource({
  table: "lifecycles",
  noun: "A lifecycle version",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    entity: enumOf(lifecycleEntities),
    version: int(),
    statuses: json<LifecycleStatus[]>(),
    transitions: json<LifecycleTransition[]>(),
    mapping: json<Record<string, string>>(),
    createdAt: timestamp(),
    createdBy: text({ nullable: true }),
  },
  fixed: ["entity", "version", "statuses", "transitions", "mapping", "createdAt", "createdBy"],
  // Two publishers racing for the same version: the second is refused, never a fork.
  unique: [{ name: "lifecycles_organization_id_entity_version_unique", columns: ["organizationId", "entity", "version"], conflict: "This lifecycle version was published meanwhile; read it and publish again" }],
  // The versions of an entity, newest first, are one range of this index (ids grow with versions).
  indexes: [{ name: "lifecycles_organization_id_entity_idx", columns: ["organizationId", "entity", "id"] }],
  filters: { entity: { kind: "equals", column: "entity" } },
});

/** Compile-time proof that the declaration stores exactly the core's StoredLifecycle. */
export const _lifecycleRecordMatches: Same<RecordOf<typeof lifecycleResource>, StoredLifecycle> = true;

export function lifecycleRepository(lifecycles: DeclaredRepository<StoredLifecycle, FilterValues<typeof lifecycleResource>>): LifecycleRepository {
  return {
    insert: (record) => lifecycles.insert(record),
    async current(organizationId, entity) {
      const [newest] = await lifecycles.list(organizationId, { entity }, { limit: 1, order: "desc" });
      return newest ?? null;
    },
    versions: (organizationId, entity, page) => lifecycles.list(organizationId, { entity }, { limit: pageLimit(page), order: "desc", after: page.beforeId }),
  };
}
