import type { CommentParentKind } from "../../core/index.js";
import {
  commentCreateSchema,
  commentListQuerySchema,
  commentListSchema,
  commentParentKindsServed,
  commentSchema,
  commentScopeFor,
  commentScopesFor,
  commentUpdateSchema,
} from "../../core/index.js";
import type { ApiRoute } from "../route.js";
import { defineApiRoute } from "../route.js";

/** Where each parent kind lives in the URL. */
const collections: Record<CommentParentKind, { segment: string; param: string; label: string }> = {
  case: { segment: "cases", param: "caseId", label: "Case" },
  alert: { segment: "alerts", param: "alertId", label: "Alert" },
  task: { segment: "tasks", param: "taskId", label: "Task" },
};

const parentNote =
  "The parent must be a live record of the caller's organization (else 404, as for an id that never existed) within the caller's TLP clearance (else 403 `tlp_restricted`); for a task, its case too.";
const authorNote = "Only the comment's author or an admin may do this (else 403 `not_author`).";

/** POST and GET on one parent kind's comments. */
function threadRoutes(kind: CommentParentKind): ApiRoute[] {
  const { segment, param, label } = collections[kind];
  const parentOf = (params: Record<string, string>) => ({ kind, id: params[param] ?? "" });
  return [
    defineApiRoute({
      method: "POST",
      path: `/${segment}/:${param}/comments`,
      operationId: `create${label}Comment`,
      tag: "Comments",
      summary: `Comment on a ${kind}`,
      description: `The caller is the author. ${parentNote} The comment inherits the ${kind}'s marking.`,
      scope: commentScopeFor(kind, "write"),
      body: commentCreateSchema,
      response: commentSchema,
      handle: ({ kit, principal, params, body }) => kit.comments.create(principal, parentOf(params), body),
    }),
    defineApiRoute({
      method: "GET",
      path: `/${segment}/:${param}/comments`,
      operationId: `list${label}Comments`,
      tag: "Comments",
      summary: `List a ${kind}'s comments`,
      description: `Oldest first (a thread reads top to bottom), keyset-paged: \`nextCursor\` continues after the last comment of the page. Deleted comments are left out. ${parentNote}`,
      scope: commentScopeFor(kind, "read"),
      query: commentListQuerySchema,
      response: commentListSchema,
      handle: ({ kit, principal, params, query }) => kit.comments.listOf(principal, parentOf(params), query),
    }),
  ];
}

export const commentRoutes: ApiRoute[] = [
  ...commentParentKindsServed.flatMap(threadRoutes),
  defineApiRoute({
    method: "GET",
    path: "/comments/:id",
    operationId: "getComment",
    tag: "Comments",
    summary: "Get a comment",
    description: "404 for an unknown, deleted or other organization's comment, or one whose parent is deleted; 403 when the parent is above the caller's TLP clearance.",
    parentScopes: commentScopesFor("read"),
    response: commentSchema,
    handle: ({ kit, principal, params }) => kit.comments.get(principal, params.id ?? ""),
  }),
  defineApiRoute({
    method: "PATCH",
    path: "/comments/:id",
    operationId: "updateComment",
    tag: "Comments",
    summary: "Edit a comment",
    description: `Replaces the body and sets \`editedAt\`; the same body again changes nothing. ${authorNote}`,
    parentScopes: commentScopesFor("write"),
    body: commentUpdateSchema,
    response: commentSchema,
    handle: ({ kit, principal, params, body }) => kit.comments.update(principal, params.id ?? "", body),
  }),
  defineApiRoute({
    method: "DELETE",
    path: "/comments/:id",
    operationId: "deleteComment",
    tag: "Comments",
    summary: "Delete a comment",
    description: `Soft delete: answers the comment with \`deletedAt\` and \`deletedBy\` set; it then leaves every read and list. ${authorNote}`,
    parentScopes: commentScopesFor("write"),
    response: commentSchema,
    handle: ({ kit, principal, params }) => kit.comments.delete(principal, params.id ?? ""),
  }),
];
