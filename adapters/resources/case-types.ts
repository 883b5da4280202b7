/**
 * Case types, declared once: the port's CaseTypeRepository is the generic repository plus a
 * lookup by the immutable key (what a case's `typeValue` names) and delete.
 */
import type { CaseType } from "../../core/case-types/types.js";
import type { CaseTypeRepository } from "../../core/ports/storage.js";
import { id, int, json, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";
import type { UnitState } from "../shared/unit-state.js";
import { definitionsWritten } from "./organization-counters.js";

export const caseTypeResource = defineResource({
  table: "case_types",
  noun: "A case type",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    key: text(),
    label: text(),
    description: text({ nullable: true }),
    defaultTlp: int({ nullable: true }),
    defaultPap: int({ nullable: true }),
    defaultSeverity: int({ nullable: true }),
    customFields: json<string[]>(),
    lifecycle: text({ nullable: true }),
    archivedAt: timestamp({ nullable: true }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    createdBy: text({ nullable: true }),
  },
  fixed: ["key", "createdAt", "createdBy"],
  unique: [{ name: "case_types_organization_id_key_unique", columns: ["organizationId", "key"], conflict: "The organization already has a case type with this key" }],
  indexes: [{ name: "case_types_organization_id_idx", columns: ["organizationId", "id"] }],
  filters: {
    key: { kind: "equals", column: "key" },
  },
});

/** Compile-time proof that the declaration stores exactly the core's CaseType. */
export const _caseTypeRecordMatches: Same<RecordOf<typeof caseTypeResource>, CaseType> = true;

/** Every write moves the organization's definitions version (triggers); the unit then reads it afresh. */
export function caseTypeRepository(types: DeclaredRepository<CaseType, FilterValues<typeof caseTypeResource>>, unit: UnitState): CaseTypeRepository {
  return {
    async insert(record) {
      await types.insert(record);
      definitionsWritten(unit, record.organizationId);
    },
    findById: (organizationId, id) => types.findById(organizationId, id),
    async update(record) {
      const updated = await types.update(record);
      definitionsWritten(unit, record.organizationId);
      return updated;
    },
    list: (organizationId, filter, page) => types.list(organizationId, filter, { limit: pageLimit(page), order: "desc", after: page.beforeId }),
    async findByKey(organizationId, key) {
      const [found] = await types.list(organizationId, { key }, { limit: 1, order: "asc" });
      return found ?? null;
    },
    async any(organizationId) {
      return (await types.list(organizationId, {}, { limit: 1, order: "asc" })).length > 0;
    },
    async delete(organizationId, id) {
      const deleted = await types.delete(organizationId, id);
      definitionsWritten(unit, organizationId);
      return deleted;
    },
  };
}
