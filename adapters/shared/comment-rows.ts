/** Comment rows ↔ records, for both dialects (the conventions of adapters/shared/rows.ts). */
import type { Comment, CommentParentKind } from "../../core/comments/types.js";
import type { RowMode } from "./rows.js";
import type { TimestampValue } from "./values.js";
import { orNull, toIsoTimestamp, toIsoTimestampOrNull } from "./values.js";

type Ts<M extends RowMode> = M extends "write" ? string : TimestampValue;
type Opt<M extends RowMode, T> = M extends "write" ? T | null : T | null | undefined;
type Complete<Missing extends never> = Missing;

export interface CommentRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  parent_type: string;
  parent_id: string;
  body: string;
  created_at: Ts<M>;
  updated_at: Ts<M>;
  created_by: Opt<M, string>;
  edited_at: Opt<M, Ts<M>>;
  deleted_at: Opt<M, Ts<M>>;
  deleted_by: Opt<M, string>;
}

export const commentColumns = [
  "id",
  "organization_id",
  "parent_type",
  "parent_id",
  "body",
  "created_at",
  "updated_at",
  "created_by",
  "edited_at",
  "deleted_at",
  "deleted_by",
] as const satisfies readonly (keyof CommentRow)[];
type _CommentColumnsComplete = Complete<Exclude<keyof CommentRow, (typeof commentColumns)[number]>>;

/** The columns an update may change; parent, author and creation are fixed at insert. */
export const commentMutableColumns = ["body", "updated_at", "edited_at", "deleted_at", "deleted_by"] as const satisfies readonly (keyof CommentRow)[];

export function commentToRow(record: Comment): CommentRow<"write"> {
  return {
    id: record.id,
    organization_id: record.organizationId,
    parent_type: record.parentType,
    parent_id: record.parentId,
    body: record.body,
    created_at: toIsoTimestamp(record.createdAt),
    updated_at: toIsoTimestamp(record.updatedAt),
    created_by: orNull(record.createdBy),
    edited_at: toIsoTimestampOrNull(record.editedAt),
    deleted_at: toIsoTimestampOrNull(record.deletedAt),
    deleted_by: orNull(record.deletedBy),
  };
}

export function commentFromRow(row: CommentRow): Comment {
  return {
    id: row.id,
    organizationId: row.organization_id,
    // Only the core writes this column, always with one of the kinds.
    parentType: row.parent_type as CommentParentKind,
    parentId: row.parent_id,
    body: row.body,
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at),
    createdBy: orNull(row.created_by),
    editedAt: toIsoTimestampOrNull(row.edited_at),
    deletedAt: toIsoTimestampOrNull(row.deleted_at),
    deletedBy: orNull(row.deleted_by),
  };
}
