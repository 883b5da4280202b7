/**
 * Comments, declared once: both dialects' tables, rows and SQL come from this declaration, and
 * the port's CommentRepository is the generic repository plus one thread query.
 */
import type { Comment } from "../../core/comments/types.js";
import { commentParentKinds } from "../../core/comments/types.js";
import type { CommentRepository } from "../../core/ports/storage.js";
import { enumOf, id, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";

export const commentResource = defineResource({
  table: "comments",
  noun: "A comment", // conflicts read "A comment with this id already exists"
  columns: {
    id: id(), // primary key; byte order on both databases
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    parentType: enumOf(commentParentKinds),
    parentId: text(),
    body: text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    createdBy: text({ nullable: true }), // the author
    editedAt: timestamp({ nullable: true }),
    deletedAt: timestamp({ nullable: true }),
    deletedBy: text({ nullable: true }),
  },
  softDelete: "deletedAt", // no read returns a row where it is set, no update touches one
  fixed: ["parentType", "parentId", "createdAt", "createdBy"], // set once, at insert; never written by update
  // A thread is one range of this index in id order: no sort, and a deep page costs a seek.
  indexes: [{ name: "comments_organization_id_parent_idx", columns: ["organizationId", "parentType", "parentId", "id"] }],
  filters: {
    parentType: { kind: "equals", column: "parentType" },
    parentId: { kind: "equals", column: "parentId" },
  },
});

/** Compile-time proof that the declaration stores exactly the core's Comment. */
export const _commentRecordMatches: Same<RecordOf<typeof commentResource>, Comment> = true;

export function commentRepository(comments: DeclaredRepository<Comment, FilterValues<typeof commentResource>>): CommentRepository {
  return {
    insert: (record) => comments.insert(record),
    findById: (organizationId, id) => comments.findById(organizationId, id),
    update: (record) => comments.update(record),
    listByParent: (organizationId, parent, page) =>
      // '' sorts before every id, so the first page is the same seek as every later one.
      comments.list(organizationId, { parentType: parent.kind, parentId: parent.id }, { limit: pageLimit({ limit: page.limit }), order: "asc", after: page.afterId ?? "" }),
  };
}
