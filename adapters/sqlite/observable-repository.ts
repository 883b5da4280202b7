import { CaseKitError, isCaseKitError } from "../../core/errors.js";
import type { Observable, ObservableFilter } from "../../core/observables/types.js";
import type { ObservableRepository } from "../../core/ports/storage.js";
import { pageLimit } from "../shared/case-filter.js";
import { normalizeObservableFilter } from "../shared/observable-filter.js";
import type { ObservableRow } from "../shared/observable-rows.js";
import { observableColumns, observableFromRow, observableMutableColumns, observableToRow } from "../shared/observable-rows.js";
import { translateError } from "./errors.js";
import { Conditions } from "./list-query.js";
import type { UnitState } from "./repositories.js";
import type { Statements } from "./statements.js";
import { unitGuards } from "../shared/unit-state.js";

const columns = observableColumns.join(", ");
const live = "deleted_at IS NULL";
/** A soft-deleted alert hides its observables from every read. */
const parentAlertLive = "NOT EXISTS (SELECT 1 FROM alerts WHERE alerts.id = observables.alert_id AND alerts.deleted_at IS NOT NULL)";

const sql = {
  insert: `INSERT INTO observables (${columns}) VALUES (${observableColumns.map((c) => `@${c}`).join(", ")})`,
  byId: `SELECT ${columns} FROM observables WHERE organization_id = ? AND id = ? AND ${live} AND ${parentAlertLive}`,
  // The partial unique indexes (observables_case_unique / _alert_unique) serve these, highest TLP first.
  byCaseValue: `SELECT ${columns} FROM observables WHERE case_id = ? AND data_type = ? AND data = ? AND tlp <= ? AND ${live} AND organization_id = ? ORDER BY tlp DESC LIMIT 1`,
  byAlertValue: `SELECT ${columns} FROM observables WHERE alert_id = ? AND data_type = ? AND data = ? AND tlp <= ? AND ${live} AND organization_id = ? ORDER BY tlp DESC LIMIT 1`,
  update: `UPDATE observables SET ${observableMutableColumns.map((c) => `${c} = @${c}`).join(", ")} WHERE organization_id = @organization_id AND id = @id AND ${live}`,
  byAlert: `SELECT ${columns} FROM observables WHERE organization_id = ? AND alert_id = ? AND ${live} ORDER BY id`,
  select: `SELECT ${columns} FROM observables`,
} as const;

/**
 * The SQL and parameters of one list call (semantics: ObservableRepository.list). A one-value
 * `data` becomes `data = ?`, so (organization_id, data, id) yields the page in order from one seek.
 */
export function observableListQuery(organizationId: string, filter: ObservableFilter, limit: number, beforeId: string | undefined) {
  const where = new Conditions(organizationId)
    .add(live)
    .add("tlp <= ?", filter.maxTlp)
    .add("(case_id IS NULL OR EXISTS (SELECT 1 FROM cases WHERE cases.id = observables.case_id AND cases.organization_id = observables.organization_id AND cases.tlp <= ?))", filter.maxTlp)
    .add(
      "(alert_id IS NULL OR EXISTS (SELECT 1 FROM alerts WHERE alerts.id = observables.alert_id AND alerts.organization_id = observables.organization_id AND alerts.deleted_at IS NULL AND alerts.tlp <= ?))",
      filter.maxTlp,
    )
    .anyOf("data", filter.data)
    .anyOf("data_type", filter.dataType)
    .anyOf("case_id", filter.caseId)
    .anyOf("alert_id", filter.alertId)
    .anyOf("tlp", filter.tlp);
  if (filter.ioc !== undefined) where.add("ioc = ?", filter.ioc ? 1 : 0);
  if (filter.sighted !== undefined) where.add("sighted = ?", filter.sighted ? 1 : 0);
  if (filter.tag !== undefined) {
    where.add(
      "EXISTS (SELECT 1 FROM json_each(observables.tags) AS tag WHERE json_extract(tag.value, '$.name') IN (SELECT value FROM json_each(?)))",
      JSON.stringify(filter.tag),
    );
  }
  if (filter.createdAfter !== undefined) where.add("created_at > ?", filter.createdAfter);
  if (filter.createdBefore !== undefined) where.add("created_at < ?", filter.createdBefore);
  return where.page(sql.select, limit, beforeId);
}

/** A clash on the per-parent value reads as such, not as the generic "record" wording. */
function duplicateOrOther(error: unknown, record: Observable): unknown {
  const translated = translateError(error);
  if (!isCaseKitError(translated) || translated.code !== "conflict" || /id already exists/.test(translated.message)) return translated;
  return new CaseKitError("conflict", `The ${record.caseId !== null ? "case" : "alert"} already has an observable ${record.dataType} with this value`);
}

/** The SQLite ObservableRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createObservableRepository(statements: Statements, unit: UnitState): ObservableRepository {
  const { reading, writing } = unitGuards(unit);
  const one = (text: string, ...params: unknown[]) => {
    const row = statements.get(text).get(...params) as ObservableRow | undefined;
    return row ? observableFromRow(row) : null;
  };

  return {
    async insert(record) {
      writing();
      try {
        statements.get(sql.insert).run(observableToRow(record));
      } catch (error) {
        throw duplicateOrOther(error, record);
      }
    },
    async findById(organizationId, id) {
      reading();
      return one(sql.byId, organizationId, id);
    },
    async findByValue(organizationId, parent, dataType, data, maxTlp) {
      reading();
      return one(parent.kind === "case" ? sql.byCaseValue : sql.byAlertValue, parent.id, dataType, data, maxTlp, organizationId);
    },
    async update(record) {
      writing();
      const row = observableToRow(record);
      const values = Object.fromEntries(["id", "organization_id", ...observableMutableColumns].map((c) => [c, row[c as keyof typeof row]]));
      try {
        return statements.get(sql.update).run(values).changes > 0;
      } catch (error) {
        throw translateError(error);
      }
    },
    async listByAlert(organizationId, alertId) {
      reading();
      return (statements.get(sql.byAlert).all(organizationId, alertId) as ObservableRow[]).map(observableFromRow);
    },
    async list(organizationId, filter, page) {
      reading();
      const limit = pageLimit(page);
      const normalized = normalizeObservableFilter(filter);
      if (limit === 0 || normalized === null) return [];
      const query = observableListQuery(organizationId, normalized, limit, page.beforeId);
      return (statements.getDynamic(query.text).all(...query.params) as ObservableRow[]).map(observableFromRow);
    },
  };
}
