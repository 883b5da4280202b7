import type { CommentRepository } from "../../core/ports/storage.js";
import { pageLimit } from "../shared/case-filter.js";
import type { CommentRow } from "../shared/comment-rows.js";
import { commentColumns, commentFromRow, commentMutableColumns, commentToRow } from "../shared/comment-rows.js";
import { translateError } from "./errors.js";
import type { UnitState } from "./repositories.js";
import type { Statements } from "./statements.js";
import { unitGuards } from "../shared/unit-state.js";

const columns = commentColumns.join(", ");
const live = "deleted_at IS NULL";

const sql = {
  insert: `INSERT INTO comments (${columns}) VALUES (${commentColumns.map((c) => `@${c}`).join(", ")})`,
  byId: `SELECT ${columns} FROM comments WHERE organization_id = ? AND id = ? AND ${live}`,
  update: `UPDATE comments SET ${commentMutableColumns.map((c) => `${c} = @${c}`).join(", ")} WHERE organization_id = @organization_id AND id = @id AND ${live}`,
  // One range of comments_organization_id_parent_idx, in index order: no sort, and a deep page
  // starts with a seek just like the first ('' sorts before every id).
  byParent: `SELECT ${columns} FROM comments WHERE organization_id = ? AND parent_type = ? AND parent_id = ? AND id > ? AND ${live} ORDER BY id LIMIT ?`,
} as const;

/** The thread statement, for the query-plan test. */
export const commentListSql = sql.byParent;

/** The SQLite CommentRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createCommentRepository(statements: Statements, unit: UnitState): CommentRepository {
  const { reading, writing } = unitGuards(unit);
  const run = (text: string, params: Record<string, unknown>): number => {
    try {
      return statements.get(text).run(params).changes;
    } catch (error) {
      throw translateError(error);
    }
  };

  return {
    async insert(record) {
      writing();
      run(sql.insert, { ...commentToRow(record) });
    },
    async findById(organizationId, id) {
      reading();
      const row = statements.get(sql.byId).get(organizationId, id) as CommentRow | undefined;
      return row ? commentFromRow(row) : null;
    },
    async update(record) {
      writing();
      const row = commentToRow(record);
      const values = Object.fromEntries(["id", "organization_id", ...commentMutableColumns].map((c) => [c, row[c as keyof typeof row]]));
      return run(sql.update, values) > 0;
    },
    async listByParent(organizationId, parent, page) {
      reading();
      const limit = pageLimit({ limit: page.limit });
      if (limit === 0) return [];
      const rows = statements.get(sql.byParent).all(organizationId, parent.kind, parent.id, page.afterId ?? "", limit) as CommentRow[];
      return rows.map(commentFromRow);
    },
  };
}
