import type { TaskRepository } from "../../core/ports/storage.js";
import { openTaskStatuses } from "../../core/tasks/lifecycle.js";
import type { TaskFilter, TaskWithCase } from "../../core/tasks/types.js";
import { pageLimit } from "../shared/case-filter.js";
import { normalizeTaskFilter } from "../shared/task-filter.js";
import type { TaskRow } from "../shared/task-rows.js";
import { taskColumns, taskFromRow, taskMutableColumns, taskToRow } from "../shared/task-rows.js";
import { translateError } from "./errors.js";
import { Conditions } from "./list-query.js";
import type { UnitState } from "./repositories.js";
import type { Statements } from "./statements.js";
import { unitGuards } from "../shared/unit-state.js";

const columns = taskColumns.join(", ");
const live = "deleted_at IS NULL";
const openStatuses = openTaskStatuses.map((s) => `'${s}'`).join(", ");

const sql = {
  insert: `INSERT INTO tasks (${columns}) VALUES (${taskColumns.map((c) => `@${c}`).join(", ")})`,
  byId: `SELECT ${columns} FROM tasks WHERE organization_id = ? AND id = ? AND ${live}`,
  // One bound JSON array, so the statement is prepared once whatever the number of ids.
  many: `SELECT ${taskColumns.map((c) => `tasks.${c}`).join(", ")}, cases.tlp AS case_tlp FROM tasks JOIN cases ON cases.id = tasks.case_id AND cases.organization_id = tasks.organization_id WHERE tasks.organization_id = ? AND tasks.id IN (SELECT value FROM json_each(?)) AND tasks.${live}`,
  update: `UPDATE tasks SET ${taskMutableColumns.map((c) => `${c} = @${c}`).join(", ")} WHERE organization_id = @organization_id AND id = @id AND ${live}`,
  // The same with positional parameters, which bind about twice as fast: bulk pages write thousands.
  updatePositional: `UPDATE tasks SET ${taskMutableColumns.map((c) => `${c} = ?`).join(", ")} WHERE organization_id = ? AND id = ? AND ${live}`,
  maxOrder: `SELECT MAX(sort_order) AS value FROM tasks WHERE organization_id = ? AND case_id = ? AND ${live}`,
  openMandatory: `SELECT 1 FROM tasks WHERE organization_id = ? AND case_id = ? AND ${live} AND mandatory = 1 AND status IN (${openStatuses}) LIMIT 1`,
  select: `SELECT ${columns} FROM tasks`,
} as const;

/**
 * The SQL and parameters of one list call (semantics: TaskRepository.list). A one-value caseId,
 * status or assigneeId becomes `col = ?`, so that column's (organization_id, col, id) index yields
 * the page in order.
 */
export function taskListQuery(organizationId: string, filter: TaskFilter, limit: number, beforeId: string | undefined) {
  const where = new Conditions(organizationId)
    .add(live)
    .add("tlp <= ?", filter.maxTlp)
    // A scalar lookup, not EXISTS: SQLite (3.50+) turns a correlated EXISTS into a join, which for
    // one case_id reads the case first and then sorts the tasks (a temp b-tree per page).
    .add("(SELECT cases.tlp FROM cases WHERE cases.id = tasks.case_id AND cases.organization_id = tasks.organization_id) <= ?", filter.maxTlp)
    .anyOf("case_id", filter.caseId)
    .anyOf("status", filter.status)
    .anyOf("assignee_id", filter.assigneeId)
    .anyOf("tlp", filter.tlp);
  if (filter.mandatory !== undefined) where.add("mandatory = ?", filter.mandatory ? 1 : 0);
  if (filter.dueAfter !== undefined) where.add("due_date >= ?", filter.dueAfter);
  if (filter.dueBefore !== undefined) where.add("due_date < ?", filter.dueBefore);
  return where.page(sql.select, limit, beforeId);
}

/** The SQLite TaskRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createTaskRepository(statements: Statements, unit: UnitState): TaskRepository {
  const { reading, writing } = unitGuards(unit);
  /** The named parameters of the update statement. */
  const updateValues = (row: TaskRow<"write">) => {
    const values: Record<string, unknown> = { id: row.id, organization_id: row.organization_id };
    for (const c of taskMutableColumns) values[c] = row[c];
    return values;
  };

  return {
    async insert(record) {
      writing();
      try {
        statements.get(sql.insert).run(taskToRow(record));
      } catch (error) {
        throw translateError(error);
      }
    },
    async findById(organizationId, id) {
      reading();
      const row = statements.get(sql.byId).get(organizationId, id) as TaskRow | undefined;
      return row ? taskFromRow(row) : null;
    },
    async findMany(organizationId, ids) {
      reading();
      if (ids.length === 0) return [];
      const rows = statements.get(sql.many).all(organizationId, JSON.stringify(ids)) as (TaskRow & { case_tlp: number })[];
      return rows.map((row): TaskWithCase => ({ task: taskFromRow(row), caseTlp: row.case_tlp }));
    },
    async update(record) {
      writing();
      try {
        return statements.get(sql.update).run(updateValues(taskToRow(record))).changes > 0;
      } catch (error) {
        throw translateError(error);
      }
    },
    async updateMany(records) {
      writing();
      const statement = statements.get(sql.updatePositional);
      let written = 0;
      try {
        for (const record of records) {
          const row = taskToRow(record);
          written += statement.run(...taskMutableColumns.map((c) => row[c]), row.organization_id, row.id).changes;
        }
      } catch (error) {
        throw translateError(error);
      }
      return written;
    },
    async maxOrder(organizationId, caseId) {
      reading();
      const row = statements.get(sql.maxOrder).get(organizationId, caseId) as { value: number | null };
      return row.value;
    },
    async hasOpenMandatory(organizationId, caseId) {
      reading();
      return statements.get(sql.openMandatory).get(organizationId, caseId) !== undefined;
    },
    async list(organizationId, filter, page) {
      reading();
      const limit = pageLimit(page);
      const normalized = normalizeTaskFilter(filter);
      if (limit === 0 || normalized === null) return [];
      const query = taskListQuery(organizationId, normalized, limit, page.beforeId);
      return (statements.getDynamic(query.text).all(...query.params) as TaskRow[]).map(taskFromRow);
    },
  };
}
