/** The kinds of record a comment can belong to. */
export const commentParentKinds = ["case", "alert", "task"] as const;
export type CommentParentKind = (typeof commentParentKinds)[number];

/** The record a comment belongs to. */
export interface CommentParent {
  kind: CommentParentKind;
  id: string;
}

/**
 * A comment on a case, an alert or a task. It has no marking of its own: every TLP check uses its
 * parent's (for a task, the higher of the task's and its case's), so a comment is never more
 * visible than what it talks about.
 */
export interface Comment {
  id: string;
  organizationId: string;
  parentType: CommentParentKind;
  parentId: string;
  body: string;
  createdAt: string;
  updatedAt: string;
  /** The author: only they (or an admin) may edit or delete it. */
  createdBy: string | null;
  /** Set when the body was last edited; null for a comment never edited. */
  editedAt: string | null;
  /** Set once soft-deleted; repositories never hand back a deleted comment. */
  deletedAt: string | null;
  deletedBy: string | null;
}

/** Keyset position of a thread page: threads read oldest first, so pages continue after an id. */
export interface CommentPageRequest {
  limit: number;
  /** Return only comments whose id sorts after this one. */
  afterId?: string;
}
