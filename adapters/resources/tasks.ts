/**
 * Tasks, declared once: both dialects' tables, rows and SQL come from this declaration. The
 * port's TaskRepository is the generic repository plus three queries about a task's case (its
 * marking, the case's highest order, an open mandatory task), each written once for both dialects.
 */
import { highestTlp } from "../../core/access/clearance.js";
import type { TaskRepository } from "../../core/ports/storage.js";
import { openTaskStatuses } from "../../core/tasks/lifecycle.js";
import type { Task, TaskFilter } from "../../core/tasks/types.js";
import { bool, id, int, json, text, timestamp, softDeletedHistory } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { encodeValue, recordOf } from "../declare/rows.js";
import type { ValueRepository } from "./custom-field-values.js";
import { customFieldFilterSpecs, customFieldFilters, indexCustomFieldValues, indexCustomFieldValuesOfMany } from "./custom-field-values.js";
import { pageLimit } from "../shared/case-filter.js";
import { timestampBound } from "../shared/timestamp-bound.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";

export const taskResource = defineResource({
  table: "tasks",
  noun: "A task",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    caseId: text({ references: { table: "cases", column: "id" } }),
    title: text(),
    description: text({ nullable: true }),
    status: text(), // a status key of the organization's task lifecycle (core/lifecycles)
    assigneeId: text({ nullable: true }),
    dueDate: timestamp({ nullable: true }),
    mandatory: bool(),
    tlp: int(),
    order: int({ name: "sort_order" }),
    // Rows written before tasks carried values hold {} (the migration's default).
    customFields: json<Record<string, unknown>>({ default: {} }),
    ...softDeletedHistory(),
  },
  softDelete: "deletedAt",
  // Identity, case and creation are set once, at insert.
  fixed: ["caseId", "createdAt", "createdBy"],
  // A page is one range of one of these, newest first: a one-value caseId, status or assigneeId
  // filter walks its own index, anything else (organization_id, id).
  indexes: [
    { name: "tasks_organization_id_idx", columns: ["organizationId", "id"] },
    { name: "tasks_organization_id_case_id_idx", columns: ["organizationId", "caseId", "id"] },
    { name: "tasks_organization_id_status_idx", columns: ["organizationId", "status", "id"] },
    { name: "tasks_organization_id_assignee_id_idx", columns: ["organizationId", "assigneeId", "id"] },
  ],
  filters: {
    // A scalar lookup of the case, not EXISTS: SQLite (3.50+) turns a correlated EXISTS into a
    // join that reads the case first and sorts the tasks; PostgreSQL would hash the cases and
    // sort. As a lookup it is one primary-key probe per row of an index walked in order.
    maxTlp: {
      kind: "condition",
      column: "tlp",
      sql: "tlp <= ? AND (SELECT cases.tlp FROM cases WHERE cases.id = tasks.case_id AND cases.organization_id = tasks.organization_id) <= ?",
      // Every task has its case (a foreign key; cases are never removed): at the highest level nothing is compared.
      holdsFrom: highestTlp,
    },
    caseId: { kind: "anyOf", column: "caseId" },
    status: { kind: "anyOf", column: "status" },
    assigneeId: { kind: "anyOf", column: "assigneeId" },
    tlp: { kind: "anyOf", column: "tlp" },
    mandatory: { kind: "equals", column: "mandatory" },
    dueAfter: { kind: "atLeast", column: "dueDate" },
    dueBefore: { kind: "below", column: "dueDate" },
    // cf.<key>=<value> (adapters/resources/custom-field-values.ts).
    ...customFieldFilterSpecs("tasks", "title"),
  },
});

/** Compile-time proof that the declaration stores exactly the core's Task. */
export const _taskRecordMatches: Same<RecordOf<typeof taskResource>, Task> = true;

/** The bespoke statements, built once per dialect. */
function taskSql(dialect: Dialect) {
  const p = dialect.param;
  const live = "tasks.deleted_at IS NULL";
  const ofCase = `tasks.organization_id = ${p(1)} AND tasks.case_id = ${p(2)} AND ${live}`;
  return {
    // Each task with its case's marking, in one query whatever the number of ids.
    many: `SELECT ${taskResource.fields.map((f) => `tasks.${f.name}`).join(", ")}, cases.tlp AS case_tlp FROM tasks JOIN cases ON cases.id = tasks.case_id AND cases.organization_id = tasks.organization_id WHERE tasks.organization_id = ${p(1)} AND ${dialect.anyOf("tasks.id", p(2))} AND ${live}`,
    maxOrder: `SELECT MAX(tasks.sort_order) AS value FROM tasks WHERE ${ofCase}`,
    openMandatory: `SELECT 1 AS found FROM tasks WHERE ${ofCase} AND tasks.mandatory = ${p(3)} AND ${dialect.anyOf("tasks.status", p(4))} LIMIT 1`,
  };
}
const taskSqlFor = oncePerDialect(taskSql);


export function taskRepository(
  tasks: DeclaredRepository<Task, FilterValues<typeof taskResource>>,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
  values: ValueRepository,
): TaskRepository {
  const { reading } = unitGuards(unit);
  const { many, maxOrder, openMandatory } = taskSqlFor(dialect);
  const mandatory = encodeValue(taskResource.byKey.get("mandatory")!.column, true);

  return {
    async insert(record) {
      await tasks.insert(record);
      await indexCustomFieldValues(values, "task", record, true);
    },
    findById: (organizationId, id) => tasks.findById(organizationId, id),
    async findMany(organizationId, ids) {
      reading();
      if (ids.length === 0) return [];
      const rows = await executor.all(many, [organizationId, dialect.list(ids)]);
      return rows.map((row) => ({ task: recordOf<Task>(taskResource, row), caseTlp: Number(row.case_tlp) }));
    },
    async update(record) {
      const written = await tasks.update(record);
      if (written) await indexCustomFieldValues(values, "task", record, false);
      return written;
    },
    async updateMany(records) {
      const written = await tasks.updateMany(records);
      await indexCustomFieldValuesOfMany(values, "task", records, false);
      return written;
    },
    // The port's patch never holds customFields: each task's value rows are its own (updateMany).
    patchMany: (organizationId, ids, patch) => tasks.patchMany(organizationId, ids, patch),
    async maxOrder(organizationId, caseId) {
      reading();
      const [row] = await executor.all(maxOrder, [organizationId, caseId]);
      return row?.value === null || row?.value === undefined ? null : Number(row.value);
    },
    async hasOpenMandatory(organizationId, caseId, openStatuses = openTaskStatuses) {
      reading();
      return (await executor.all(openMandatory, [organizationId, caseId, mandatory, dialect.list(openStatuses)])).length > 0;
    },
    async list(organizationId, { customField, ...filter }: TaskFilter, page) {
      if (customField?.length) reading();
      const byValue = await customFieldFilters(dialect, executor, organizationId, "task", customField, pageLimit(page));
      return tasks.list(
        organizationId,
        { ...filter, dueAfter: timestampBound("dueAfter", filter.dueAfter), dueBefore: timestampBound("dueBefore", filter.dueBefore), ...byValue },
        { limit: pageLimit(page), order: "desc", after: page.beforeId },
      );
    },
  };
}
