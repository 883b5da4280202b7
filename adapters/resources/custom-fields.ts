/**
 * Custom field definitions, declared once: the port's CustomFieldRepository is the generic
 * repository plus `listAll` (an organization has tens of definitions; every write of a record
 * reads them) and a lookup by the immutable key.
 */
import { customFieldTypes } from "../../core/custom-fields/types.js";
import type { CustomFieldBounds, CustomFieldDefinition, CustomFieldOption, CustomFieldRequirement, CustomFieldScope } from "../../core/custom-fields/types.js";
import type { CustomFieldRepository } from "../../core/ports/storage.js";
import { bool, enumOf, id, int, json, nullableJson, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";
import type { UnitState } from "../shared/unit-state.js";
import { definitionsWritten } from "./organization-counters.js";

/** An organization defines at most this many fields: listAll reads them in one page. */
export const maxCustomFields = 500;

export const customFieldResource = defineResource({
  table: "custom_fields",
  noun: "A custom field",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    key: text(),
    label: text(),
    description: text({ nullable: true }),
    scopes: json<CustomFieldScope[]>(),
    type: enumOf(customFieldTypes),
    options: json<CustomFieldOption[]>(),
    bounds: json<CustomFieldBounds>(),
    required: json<CustomFieldRequirement>(),
    defaultValue: nullableJson<unknown>(),
    tlpFloor: int({ nullable: true }),
    filterable: bool(),
    archivedAt: timestamp({ nullable: true }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    createdBy: text({ nullable: true }),
  },
  fixed: ["key", "type", "createdAt", "createdBy"],
  unique: [{ name: "custom_fields_organization_id_key_unique", columns: ["organizationId", "key"], conflict: "The organization already has a custom field with this key" }],
  indexes: [{ name: "custom_fields_organization_id_idx", columns: ["organizationId", "id"] }],
  filters: {
    key: { kind: "equals", column: "key" },
    scope: { kind: "jsonTags", column: "scopes" },
  },
});

/** Compile-time proof that the declaration stores exactly the core's definition. */
export const _customFieldRecordMatches: Same<RecordOf<typeof customFieldResource>, CustomFieldDefinition> = true;

/** Every write moves the organization's definitions version (triggers); the unit then reads it afresh. */
export function customFieldRepository(fields: DeclaredRepository<CustomFieldDefinition, FilterValues<typeof customFieldResource>>, unit: UnitState): CustomFieldRepository {
  return {
    async insert(record) {
      await fields.insert(record);
      definitionsWritten(unit, record.organizationId);
    },
    findById: (organizationId, id) => fields.findById(organizationId, id),
    async update(record) {
      const updated = await fields.update(record);
      definitionsWritten(unit, record.organizationId);
      return updated;
    },
    list: (organizationId, { scope, key }, page) => fields.list(organizationId, { key, scope: scope === undefined ? undefined : [scope] }, { limit: pageLimit(page), order: "desc", after: page.beforeId }),
    async findByKey(organizationId, key) {
      const [found] = await fields.list(organizationId, { key }, { limit: 1, order: "asc" });
      return found ?? null;
    },
    listAll: (organizationId) => fields.list(organizationId, {}, { limit: maxCustomFields, order: "asc" }),
  };
}
