import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { CommentParent } from "../../core/comments/types.js";
import { CaseKitError } from "../../core/errors.js";
import type { CommentRepository } from "../../core/ports/storage.js";
import { pageLimit } from "../shared/case-filter.js";
import type { CommentRow } from "../shared/comment-rows.js";
import { commentFromRow, commentMutableColumns, commentToRow } from "../shared/comment-rows.js";
import { guard } from "./errors.js";
import type { UnitState } from "./repositories.js";
import { rowSelection, rowValues } from "./rows.js";
import { comments } from "./schema.js";
import { unitGuards } from "../shared/unit-state.js";

/** Compile-time proof that the table's columns are exactly the shared row's keys. */
type ColumnNames = { [K in keyof (typeof comments)["_"]["columns"]]: (typeof comments)["_"]["columns"][K]["_"]["name"] }[keyof (typeof comments)["_"]["columns"]];
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
export const _commentColumnsMatch: Same<ColumnNames, keyof CommentRow> = true;

const commentRow = rowSelection(comments);
const live = isNull(comments.deletedAt);

/**
 * One thread page: a range of comments_organization_id_parent_idx read in index order, starting
 * after `afterId` ('' sorts before every id under the column's C collation), so no sort and no
 * offset: a deep page costs what the first one does.
 */
export function commentListStatement(db: NodePgDatabase, organizationId: string, parent: CommentParent, afterId: string, limit: number) {
  return db
    .select(commentRow)
    .from(comments)
    .where(and(eq(comments.organizationId, organizationId), eq(comments.parentType, parent.kind), eq(comments.parentId, parent.id), gt(comments.id, afterId), live))
    .orderBy(asc(comments.id))
    .limit(limit);
}

/** The PostgreSQL CommentRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createCommentRepository(db: NodePgDatabase, unit: UnitState): CommentRepository {
  const { reading, writing } = unitGuards(unit);

  return {
    async insert(record) {
      writing();
      // ON CONFLICT DO NOTHING keeps the transaction usable, as a refused statement does on SQLite.
      const written = await guard(db.insert(comments).values(rowValues(comments, commentToRow(record))).onConflictDoNothing().returning({ id: comments.id }));
      if (written.length === 0) throw new CaseKitError("conflict", "A comment with this id already exists");
    },
    async findById(organizationId, id) {
      reading();
      const rows = await guard(db.select(commentRow).from(comments).where(and(eq(comments.organizationId, organizationId), eq(comments.id, id), live)).limit(1));
      return rows[0] ? commentFromRow(rows[0] as unknown as CommentRow) : null;
    },
    async update(record) {
      writing();
      const row = commentToRow(record);
      const changes = Object.fromEntries(commentMutableColumns.map((c) => [c, row[c]]));
      const written = await guard(
        db
          .update(comments)
          .set(rowValues(comments, changes))
          .where(and(eq(comments.organizationId, record.organizationId), eq(comments.id, record.id), live))
          .returning({ id: comments.id }),
      );
      return written.length > 0;
    },
    async listByParent(organizationId, parent, page) {
      reading();
      const limit = pageLimit({ limit: page.limit });
      if (limit === 0) return [];
      const rows = await guard(commentListStatement(db, organizationId, parent, page.afterId ?? "", limit));
      return rows.map((row) => commentFromRow(row as unknown as CommentRow));
    },
  };
}
