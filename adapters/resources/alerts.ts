/**
 * Alerts, declared once: both dialects' tables, rows and SQL come from this declaration. The
 * port's AlertRepository is the generic repository plus what is special about alerts, each
 * written once for both dialects: the read by reference, a read and an update that reach
 * soft-deleted alerts too (restore, an admin's view), and alerts by source
 * (alert-source-counts.ts).
 */
import { highestTlp } from "../../core/access/clearance.js";
import type { Alert, AlertFilter, AlertTag } from "../../core/alerts/types.js";
import { CaseKitError } from "../../core/errors.js";
import type { AlertRepository } from "../../core/ports/storage.js";
import { id, int, json, text, timestamp, softDeletedHistory } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import type { ValueRepository } from "./custom-field-values.js";
import { customFieldFilterSpecs, customFieldFilters, indexCustomFieldValues } from "./custom-field-values.js";
import { paramsOf, recordOf } from "../declare/rows.js";
import { pageLimit } from "../shared/case-filter.js";
import { timestampBound } from "../shared/timestamp-bound.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";
import { countBySource } from "./alert-source-counts.js";

const referenceTaken = "A live alert of the organization already has this source and sourceRef";

export const alertResource = defineResource({
  table: "alerts",
  noun: "An alert",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    title: text(),
    description: text({ nullable: true }),
    severity: int(),
    tlp: int(),
    pap: int(),
    typeValue: text({ nullable: true }),
    source: text(),
    sourceRef: text({ nullable: true }),
    statusValue: text(), // a status key of the organization's alert lifecycle (core/lifecycles)
    assigneeId: text({ nullable: true }),
    tags: json<AlertTag[]>(),
    customFields: json<Record<string, unknown>>(),
    /** When the event the alert reports happened (the source's time), not when it arrived. */
    eventDate: timestamp({ nullable: true }),
    /** How often the source sent it (idempotent ingestion), and when last. */
    occurrences: int({ default: 1 }),
    lastSeenAt: timestamp(),
    /** The case it was promoted to or merged into. */
    caseId: text({ nullable: true }),
    ...softDeletedHistory(),
  },
  softDelete: "deletedAt",
  // Creation is set once, at insert.
  fixed: ["createdAt", "createdBy"],
  // Idempotent ingestion: one live alert per (organization, source, sourceRef) and TLP, so a
  // report from a caller who may not see the alert that has its reference becomes an alert of
  // its own instead of telling that one exists (core/alerts/ingest.ts).
  unique: [
    {
      name: "alerts_source_ref_unique",
      columns: ["organizationId", "source", "sourceRef", "tlp"],
      where: "deleted_at IS NULL AND source_ref IS NOT NULL",
      conflict: referenceTaken,
    },
  ],
  // A page is one range of one of the first four, newest first: a one-value statusValue,
  // severity or assigneeId filter walks its own index, anything else (organization_id, id).
  indexes: [
    { name: "alerts_organization_id_idx", columns: ["organizationId", "id"] },
    { name: "alerts_organization_id_status_value_idx", columns: ["organizationId", "statusValue", "id"] },
    { name: "alerts_organization_id_severity_idx", columns: ["organizationId", "severity", "id"] },
    { name: "alerts_organization_id_assignee_id_idx", columns: ["organizationId", "assigneeId", "id"] },
    // The tag filter's containment (PostgreSQL).
    { name: "alerts_tags_idx", columns: ["tags"], gin: true },
    // Alerts by source: counted from this index alone (covering), without touching the table.
    { name: "alerts_organization_id_source_idx", columns: ["organizationId", "source", "deletedAt", "tlp", "statusValue", "createdAt"] },
    // Alerts by source between two instants off the hour: the partial hours at the edges are
    // counted from this index alone (covering), one seek to the range's start.
    {
      name: "alerts_organization_id_created_at_idx",
      columns: ["organizationId", "createdAt", "tlp", "statusValue", "source"],
      where: "deleted_at IS NULL",
      sqliteAlso: ["deletedAt"],
    },
  ],
  filters: {
    maxTlp: { kind: "condition", column: "tlp", sql: "tlp <= ?", holdsFrom: highestTlp },
    statusValue: { kind: "anyOf", column: "statusValue" },
    severity: { kind: "anyOf", column: "severity" },
    assigneeId: { kind: "anyOf", column: "assigneeId" },
    source: { kind: "anyOf", column: "source" },
    typeValue: { kind: "anyOf", column: "typeValue" },
    tlp: { kind: "anyOf", column: "tlp" },
    tag: { kind: "jsonTags", column: "tags", key: "name" },
    q: { kind: "contains", column: "title" },
    created: { kind: "range", column: "createdAt" },
    // cf.<key>=<value>, up to three at once, in the form each value's count calls for
    // (adapters/resources/custom-field-values.ts).
    ...customFieldFilterSpecs("alerts", "title"),
  },
});

/** Compile-time proof that the declaration stores exactly the core's Alert. */
export const _alertRecordMatches: Same<RecordOf<typeof alertResource>, Alert> = true;

/** The bespoke statements, built once per dialect. */
function alertSql(dialect: Dialect) {
  const p = dialect.param;
  const columns = alertResource.fields.map((f) => f.name).join(", ");
  const { mutable } = alertResource;
  const k = mutable.length;
  return {
    byIdWithDeleted: `SELECT ${columns} FROM alerts WHERE organization_id = ${p(1)} AND id = ${p(2)}`,
    // The partial unique index alerts_source_ref_unique serves this: one seek, the highest TLP first.
    bySourceRef: `SELECT ${columns} FROM alerts WHERE organization_id = ${p(1)} AND source = ${p(2)} AND source_ref = ${p(3)} AND tlp <= ${p(4)} AND deleted_at IS NULL ORDER BY tlp DESC LIMIT 1`,
    // Live or deleted: the port's update reaches both (delete, restore).
    update: `UPDATE alerts SET ${mutable.map((f, i) => `${f.name} = ${p(i + 1)}`).join(", ")} WHERE organization_id = ${p(k + 1)} AND id = ${p(k + 2)}`,
    updateFields: [...mutable, alertResource.tenant!, alertResource.id],
  };
}
const alertSqlFor = oncePerDialect(alertSql);

export function alertRepository(
  alerts: DeclaredRepository<Alert, FilterValues<typeof alertResource>>,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
  values: ValueRepository,
): AlertRepository {
  const { reading, writing } = unitGuards(unit);
  const sql = alertSqlFor(dialect);
  const one = async (text: string, params: unknown[]): Promise<Alert | null> => {
    const [row] = await executor.all(text, params);
    return row ? recordOf<Alert>(alertResource, row) : null;
  };

  return {
    async insert(record) {
      await alerts.insert(record);
      await indexCustomFieldValues(values, "alert", record, true);
    },
    async findById(organizationId, id, options = {}) {
      if (!options.includeDeleted) return alerts.findById(organizationId, id);
      reading();
      return one(sql.byIdWithDeleted, [organizationId, id]);
    },
    async findBySourceRef(organizationId, source, sourceRef, maxTlp) {
      reading();
      return one(sql.bySourceRef, [organizationId, source, sourceRef, maxTlp]);
    },
    async update(record) {
      writing();
      const params = paramsOf(sql.updateFields, record);
      // Only a live alert with a reference can clash (alerts_source_ref_unique): guarded, so the
      // clash leaves the unit usable (a SAVEPOINT on PostgreSQL; SQLite undoes the statement alone).
      const clashable = record.deletedAt === null && record.sourceRef !== null;
      try {
        const written = (await (clashable ? executor.guarded(sql.update, params) : executor.run(sql.update, params))) > 0;
        if (written) await indexCustomFieldValues(values, "alert", record, false);
        return written;
      } catch (error) {
        if (dialect.uniqueViolation(error)) throw new CaseKitError("conflict", referenceTaken);
        throw error;
      }
    },
    findMany: (organizationId, ids) => alerts.findMany(organizationId, ids),
    assignMany: (organizationId, ids, assigneeId, updatedAt) => alerts.patchMany(organizationId, ids, { assigneeId, updatedAt }),
    async list(organizationId, { includeDeleted, q, createdAfter, createdBefore, customField, ...filter }: AlertFilter, page) {
      const after = timestampBound("createdAfter", createdAfter);
      const before = timestampBound("createdBefore", createdBefore);
      const created = after === undefined && before === undefined ? undefined : { after, before };
      // An empty q matches every alert: no condition at all, so the page keeps its index.
      if (customField?.length) reading();
      const byValue = await customFieldFilters(dialect, executor, organizationId, "alert", customField, pageLimit(page));
      const filters = { ...filter, q: q === "" ? undefined : q, created, ...byValue };
      return alerts.list(organizationId, filters, { limit: pageLimit(page), order: "desc", after: page.beforeId, withDeleted: includeDeleted === true });
    },
    async countBySource(organizationId, filter) {
      reading();
      return countBySource(dialect, executor, organizationId, filter);
    },
  };
}
