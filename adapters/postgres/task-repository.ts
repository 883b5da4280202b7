import type { SQL } from "drizzle-orm";
import { and, desc, eq, getTableColumns, gte, inArray, isNull, lt, lte, max, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { TaskRepository } from "../../core/ports/storage.js";
import { openTaskStatuses } from "../../core/tasks/lifecycle.js";
import type { Task, TaskFilter } from "../../core/tasks/types.js";
import { pageLimit } from "../shared/case-filter.js";
import { normalizeTaskFilter } from "../shared/task-filter.js";
import type { TaskRow } from "../shared/task-rows.js";
import { taskFromRow, taskMutableColumns, taskToRow } from "../shared/task-rows.js";
import { guard } from "./errors.js";
import type { UnitState } from "./repositories.js";
import { rowSelection, rowValues } from "./rows.js";
import { cases, tasks } from "./schema.js";
import { unitGuards } from "../shared/unit-state.js";

/** Compile-time proof that the table's columns are exactly the shared row's keys. */
type ColumnNames = { [K in keyof (typeof tasks)["_"]["columns"]]: (typeof tasks)["_"]["columns"][K]["_"]["name"] }[keyof (typeof tasks)["_"]["columns"]];
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
export const _taskColumnsMatch: Same<ColumnNames, keyof TaskRow> = true;

const taskRow = rowSelection(tasks);
const live = isNull(tasks.deletedAt);

/** The shared row with a PostgreSQL boolean (the shared mapper writes SQLite's 0/1). */
function toValues(record: Task, row: Partial<ReturnType<typeof taskToRow>>) {
  return rowValues(tasks, { ...row, ...("mandatory" in row ? { mandatory: record.mandatory } : {}) });
}

/** The SQL type of each mutable column, for the recordset a bulk write unpacks. */
const recordsetTypes: Record<(typeof taskMutableColumns)[number], string> = {
  title: "text",
  description: "text",
  status: "text",
  assignee_id: "text",
  due_date: "timestamptz",
  mandatory: "boolean",
  tlp: "integer",
  sort_order: "integer",
  updated_at: "timestamptz",
  deleted_at: "timestamptz",
  deleted_by: "text",
};
const recordsetColumns = sql.raw(["id text", ...taskMutableColumns.map((c) => `${c} ${recordsetTypes[c]}`)].join(", "));
const recordsetAssignments = sql.raw(taskMutableColumns.map((c) => `${c} = r.${c}`).join(", "));

function conditions(filter: TaskFilter): SQL[] {
  const where: SQL[] = [
    live,
    lte(tasks.tlp, filter.maxTlp),
    // A scalar lookup per row, not EXISTS: a semi-join lets the planner hash the cases and sort
    // the tasks, so a deep page would read everything below the cursor.
    sql`(select ${cases.tlp} from ${cases} where ${cases.id} = ${tasks.caseId} and ${cases.organizationId} = ${tasks.organizationId}) <= ${filter.maxTlp}`,
  ];
  // One value is `=`, so that column's (organization_id, column, id) index yields rows in order.
  const anyOf = <T extends string | number>(column: typeof tasks.caseId | typeof tasks.status | typeof tasks.assigneeId | typeof tasks.tlp, values: T[] | undefined) => {
    if (values) where.push(values.length === 1 ? eq(column, values[0]!) : inArray(column, values));
  };
  anyOf(tasks.caseId, filter.caseId);
  anyOf(tasks.status, filter.status);
  anyOf(tasks.assigneeId, filter.assigneeId);
  anyOf(tasks.tlp, filter.tlp);
  if (filter.mandatory !== undefined) where.push(eq(tasks.mandatory, filter.mandatory));
  if (filter.dueAfter !== undefined) where.push(gte(tasks.dueDate, filter.dueAfter));
  if (filter.dueBefore !== undefined) where.push(lt(tasks.dueDate, filter.dueBefore));
  return where;
}

/** One list call's statement (semantics: TaskRepository.list), filter already normalised. */
export function taskListStatement(db: NodePgDatabase, organizationId: string, filter: TaskFilter, limit: number, beforeId: string | undefined) {
  const keyset = beforeId === undefined ? [] : [lt(tasks.id, beforeId)];
  return db
    .select(taskRow)
    .from(tasks)
    .where(and(eq(tasks.organizationId, organizationId), ...conditions(filter), ...keyset))
    .orderBy(desc(tasks.id))
    .limit(limit);
}

/** The PostgreSQL TaskRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createTaskRepository(db: NodePgDatabase, unit: UnitState): TaskRepository {
  const { reading, writing } = unitGuards(unit);
  const fromRow = (row: unknown): Task => taskFromRow(row as TaskRow);

  return {
    async insert(record) {
      writing();
      await guard(db.insert(tasks).values(toValues(record, taskToRow(record))));
    },
    async findById(organizationId, id) {
      reading();
      const rows = await guard(db.select(taskRow).from(tasks).where(and(eq(tasks.organizationId, organizationId), eq(tasks.id, id), live)).limit(1));
      return rows[0] ? fromRow(rows[0]) : null;
    },
    async findMany(organizationId, ids) {
      reading();
      if (ids.length === 0) return [];
      const rows = await guard(
        db
          .select({ ...getTableColumns(tasks), caseTlp: cases.tlp })
          .from(tasks)
          .innerJoin(cases, and(eq(cases.id, tasks.caseId), eq(cases.organizationId, tasks.organizationId)))
          .where(and(eq(tasks.organizationId, organizationId), inArray(tasks.id, [...ids]), live)),
      );
      return rows.map(({ caseTlp, ...task }) => ({ task: { ...task, status: task.status as Task["status"] }, caseTlp }));
    },
    async update(record) {
      writing();
      const row = taskToRow(record);
      const changes = Object.fromEntries(taskMutableColumns.map((c) => [c, row[c]]));
      const written = await guard(
        db
          .update(tasks)
          .set(toValues(record, changes))
          .where(and(eq(tasks.organizationId, record.organizationId), eq(tasks.id, record.id), live))
          .returning({ id: tasks.id }),
      );
      return written.length > 0;
    },
    async updateMany(records) {
      writing();
      if (records.length === 0) return 0;
      const organizationId = records[0]!.organizationId;
      // One statement per page: the rows travel as one JSON array and are unpacked server-side.
      const payload = records.map((record) => {
        const row = taskToRow(record);
        const values: Record<string, unknown> = { id: row.id };
        for (const c of taskMutableColumns) values[c] = row[c];
        values.mandatory = record.mandatory;
        return { organizationId: record.organizationId, values };
      });
      if (payload.some((p) => p.organizationId !== organizationId)) throw new Error("casekit: updateMany takes the tasks of one organization");
      const result = await guard(
        db.execute(sql`update ${tasks} set ${recordsetAssignments}
          from jsonb_to_recordset(${JSON.stringify(payload.map((p) => p.values))}::jsonb) as r(${recordsetColumns})
          where ${tasks.organizationId} = ${organizationId} and ${tasks.id} = r.id and ${tasks.deletedAt} is null`),
      );
      return result.rowCount ?? 0;
    },
    async maxOrder(organizationId, caseId) {
      reading();
      const rows = await guard(db.select({ value: max(tasks.order) }).from(tasks).where(and(eq(tasks.organizationId, organizationId), eq(tasks.caseId, caseId), live)));
      return rows[0]?.value ?? null;
    },
    async hasOpenMandatory(organizationId, caseId) {
      reading();
      const rows = await guard(
        db
          .select({ one: sql`1` })
          .from(tasks)
          .where(and(eq(tasks.organizationId, organizationId), eq(tasks.caseId, caseId), live, eq(tasks.mandatory, true), inArray(tasks.status, [...openTaskStatuses])))
          .limit(1),
      );
      return rows.length > 0;
    },
    async list(organizationId, filter, page) {
      reading();
      const limit = pageLimit(page);
      const normalized = normalizeTaskFilter(filter);
      if (limit === 0 || normalized === null) return [];
      const rows = await guard(taskListStatement(db, organizationId, normalized, limit, page.beforeId));
      return rows.map(fromRow);
    },
  };
}
