/**
 * Observables, declared once: both dialects' tables, rows and SQL come from this declaration. The
 * port's ObservableRepository is the generic repository plus the reads that look at the parent
 * (a soft-deleted alert hides its observables; the per-parent value lookup; an alert's whole
 * list), each written once for both dialects.
 */
import type { Observable, ObservableFilter, ObservableTag } from "../../core/observables/types.js";
import type { ObservableRepository } from "../../core/ports/storage.js";
import { bool, id, int, json, text, softDeletedHistory } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { recordOf } from "../declare/rows.js";
import type { ValueRepository } from "./custom-field-values.js";
import { customFieldFilterSpecs, customFieldFilters, indexCustomFieldValues } from "./custom-field-values.js";
import { pageLimit } from "../shared/case-filter.js";
import { timestampBound } from "../shared/timestamp-bound.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";

/** The clash of a parent's live value: which parent, and what kind of value. */
const duplicateValue = (record: Readonly<Record<string, unknown>>): string =>
  `The ${record.caseId !== null ? "case" : "alert"} already has an observable ${String(record.dataType)} with this value`;

export const observableResource = defineResource({
  table: "observables",
  noun: "An observable",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    /** Exactly one of case_id and alert_id is set: the parent. */
    caseId: text({ nullable: true, references: { table: "cases", column: "id" } }),
    alertId: text({ nullable: true, references: { table: "alerts", column: "id" } }),
    dataType: text(),
    data: text(),
    tlp: int(),
    pap: int(),
    ioc: bool(),
    sighted: bool(),
    tags: json<ObservableTag[]>(),
    message: text({ nullable: true }),
    // Rows written before observables carried values hold {} (the migration's default).
    customFields: json<Record<string, unknown>>({ default: {} }),
    ...softDeletedHistory(),
  },
  softDelete: "deletedAt",
  // Parent, value and creation are set once, at insert.
  fixed: ["caseId", "alertId", "dataType", "data", "createdAt", "createdBy"],
  // One live observable per parent, (dataType, data) and TLP: a value the caller may not see is
  // added beside the hidden one, never merged into it (core/observables/dedupe.ts).
  unique: [
    { name: "observables_case_unique", columns: ["caseId", "dataType", "data", "tlp"], where: "deleted_at IS NULL AND case_id IS NOT NULL", conflict: duplicateValue },
    { name: "observables_alert_unique", columns: ["alertId", "dataType", "data", "tlp"], where: "deleted_at IS NULL AND alert_id IS NOT NULL", conflict: duplicateValue },
  ],
  indexes: [
    { name: "observables_organization_id_idx", columns: ["organizationId", "id"] },
    // "Where else have we seen this IP?": one index seek by value.
    { name: "observables_organization_id_data_idx", columns: ["organizationId", "data", "id"] },
    { name: "observables_organization_id_case_id_idx", columns: ["organizationId", "caseId", "id"] },
    { name: "observables_organization_id_alert_id_idx", columns: ["organizationId", "alertId", "id"] },
  ],
  filters: {
    // The parent must be at or below the clearance too, and a parent alert live: primary-key
    // lookups per row of the index the page walks. Scalar lookups, not EXISTS (as tasks): under
    // an OR, PostgreSQL may hash every case of the clearance for an EXISTS instead of probing
    // the few the page's rows name; a missing or deleted parent is a NULL, which no bound passes.
    // So it never holds for every row (no `holdsFrom`): at any clearance it hides a deleted alert's observables.
    maxTlp: {
      kind: "condition",
      column: "tlp",
      sql:
        "tlp <= ?" +
        " AND (case_id IS NULL OR (SELECT cases.tlp FROM cases WHERE cases.id = observables.case_id AND cases.organization_id = observables.organization_id) <= ?)" +
        " AND (alert_id IS NULL OR (SELECT alerts.tlp FROM alerts WHERE alerts.id = observables.alert_id AND alerts.organization_id = observables.organization_id AND alerts.deleted_at IS NULL) <= ?)",
    },
    data: { kind: "anyOf", column: "data" },
    dataType: { kind: "anyOf", column: "dataType" },
    caseId: { kind: "anyOf", column: "caseId" },
    alertId: { kind: "anyOf", column: "alertId" },
    tlp: { kind: "anyOf", column: "tlp" },
    ioc: { kind: "equals", column: "ioc" },
    sighted: { kind: "equals", column: "sighted" },
    tag: { kind: "jsonTags", column: "tags", key: "name" },
    created: { kind: "range", column: "createdAt" },
    // cf.<key>=<value> (adapters/resources/custom-field-values.ts).
    ...customFieldFilterSpecs("observables", "data"),
  },
});

/** Compile-time proof that the declaration stores exactly the core's Observable. */
export const _observableRecordMatches: Same<RecordOf<typeof observableResource>, Observable> = true;

/** The bespoke reads, built once per dialect. */
function observableSql(dialect: Dialect) {
  const p = dialect.param;
  const columns = observableResource.fields.map((f) => f.name).join(", ");
  const live = "deleted_at IS NULL";
  // The partial unique indexes (observables_case_unique / _alert_unique) serve these, highest TLP first.
  const byValue = (parent: string) =>
    `SELECT ${columns} FROM observables WHERE ${parent} = ${p(1)} AND data_type = ${p(2)} AND data = ${p(3)} AND tlp <= ${p(4)} AND ${live} AND organization_id = ${p(5)} ORDER BY tlp DESC LIMIT 1`;
  return {
    // A soft-deleted alert hides its observables from every read.
    byId: `SELECT ${columns} FROM observables WHERE organization_id = ${p(1)} AND id = ${p(2)} AND ${live} AND NOT EXISTS (SELECT 1 FROM alerts WHERE alerts.id = observables.alert_id AND alerts.deleted_at IS NOT NULL)`,
    byCaseValue: byValue("case_id"),
    byAlertValue: byValue("alert_id"),
    byAlert: `SELECT ${columns} FROM observables WHERE organization_id = ${p(1)} AND alert_id = ${p(2)} AND ${live} ORDER BY id`,
  };
}
const observableSqlFor = oncePerDialect(observableSql);


export function observableRepository(
  observables: DeclaredRepository<Observable, FilterValues<typeof observableResource>>,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
  values: ValueRepository,
): ObservableRepository {
  const { reading } = unitGuards(unit);
  const { byId, byCaseValue, byAlertValue, byAlert } = observableSqlFor(dialect);
  const one = async (text: string, params: unknown[]): Promise<Observable | null> => {
    const [row] = await executor.all(text, params);
    return row ? recordOf<Observable>(observableResource, row) : null;
  };

  return {
    async insert(record) {
      await observables.insert(record);
      await indexCustomFieldValues(values, "observable", record, true);
    },
    async findById(organizationId, id) {
      reading();
      return one(byId, [organizationId, id]);
    },
    async findByValue(organizationId, parent, dataType, data, maxTlp) {
      reading();
      return one(parent.kind === "case" ? byCaseValue : byAlertValue, [parent.id, dataType, data, maxTlp, organizationId]);
    },
    async update(record) {
      const written = await observables.update(record);
      if (written) await indexCustomFieldValues(values, "observable", record, false);
      return written;
    },
    async listByAlert(organizationId, alertId) {
      reading();
      return (await executor.all(byAlert, [organizationId, alertId])).map((row) => recordOf<Observable>(observableResource, row));
    },
    async list(organizationId, { createdAfter, createdBefore, customField, ...filter }: ObservableFilter, page) {
      const after = timestampBound("createdAfter", createdAfter);
      const before = timestampBound("createdBefore", createdBefore);
      const created = after === undefined && before === undefined ? undefined : { after, before };
      if (customField?.length) reading();
      const byValue = await customFieldFilters(dialect, executor, organizationId, "observable", customField, pageLimit(page));
      return observables.list(organizationId, { ...filter, created, ...byValue }, { limit: pageLimit(page), order: "desc", after: page.beforeId });
    },
  };
}
