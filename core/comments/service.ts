import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import type { Scope } from "../access/scopes.js";
import { recordEdit } from "../audit/record-edit.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { withTlpDenialAudit } from "../tlp/audit-log.js";
import { auditView, showListed } from "../tlp/audit-view.js";
import type { TlpAction } from "../tlp/types.js";
import { parse } from "../validation.js";
import { loadParent, scopeFor, scopesFor } from "./parent.js";
import { commentCreateSchema, commentListQuerySchema, commentUpdateSchema } from "./schema.js";
import type { Comment, CommentParent } from "./types.js";

/** A comment as the API shows it: with the marking it inherits from its parent. */
export type CommentView = Comment & { tlp: number };

type Page = { data: CommentView[]; nextCursor: string | null };

/** A comment with its thread's marking, member by member (one per comment listed; V8 adds a member to a spread's copy slowly). */
function viewOf(c: Comment, tlp: number): CommentView {
  return {
    id: c.id,
    organizationId: c.organizationId,
    parentType: c.parentType,
    parentId: c.parentId,
    body: c.body,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    createdBy: c.createdBy,
    editedAt: c.editedAt,
    deletedAt: c.deletedAt,
    deletedBy: c.deletedBy,
    tlp,
  };
}

export interface CommentService {
  /** Adds a comment to a case, an alert or a task; the caller is its author. */
  create(principal: Principal, parent: CommentParent, input: unknown): Promise<CommentView>;
  /** The parent's live comments, oldest first (a thread reads top to bottom). */
  listOf(principal: Principal, parent: CommentParent, query: unknown): Promise<Page>;
  get(principal: Principal, id: string): Promise<CommentView>;
  /** Replaces the body: the author or an admin only. */
  update(principal: Principal, id: string, input: unknown): Promise<CommentView>;
  /** Soft delete, the author or an admin only: the comment leaves every read and list. */
  delete(principal: Principal, id: string): Promise<CommentView>;
}

/** Comment routes by id serve every parent kind: a caller with none of their scopes stops here. */
function requireOneOf(principal: Principal, scopes: readonly Scope[]): void {
  if (!scopes.some((scope) => principal.scopes.has(scope))) {
    throw new CaseKitError("missing_scope", `This operation needs the parent's scope: one of ${scopes.join(", ")}`);
  }
}

function parentOf(comment: Comment): CommentParent {
  return { kind: comment.parentType, id: comment.parentId };
}

export function createCommentService(deps: CaseKitDeps): CommentService {
  const { storage, clock, ids } = deps;

  /**
   * The live comment, reachable only with its parent's scope and while the parent is (404 / 403
   * exactly as for the parent: the comment has the parent's marking).
   */
  async function loadVisible(tx: UnitOfWork, principal: Principal, id: string, access: "read" | "write", action: TlpAction): Promise<CommentView> {
    const found = await tx.comments.findById(principal.organizationId, id);
    if (!found) throw new CaseKitError("not_found", `No comment ${id}`);
    requireScope(principal, scopeFor(found.parentType, access));
    const tlp = await loadParent(tx, principal, parentOf(found), action, found);
    return viewOf(found, tlp);
  }

  /** Edits and deletes belong to the author; an admin may moderate. */
  function requireAuthorOrAdmin(principal: Principal, comment: Comment): void {
    if (principal.role !== "admin" && (comment.createdBy === null || comment.createdBy !== principal.userId)) {
      throw new CaseKitError("not_author", "Only the comment's author or an admin may change or delete it");
    }
  }

  return {
    async create(principal, parent, input) {
      requireScope(principal, scopeFor(parent.kind, "write"));
      const { body } = parse(commentCreateSchema, input);
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const tlp = await loadParent(tx, principal, parent, "edit");
          const at = now.toISOString();
          const record: Comment = {
            id: ids.next("cmt"),
            organizationId: principal.organizationId,
            parentType: parent.kind,
            parentId: parent.id,
            body,
            createdAt: at,
            updatedAt: at,
            createdBy: principal.userId,
            editedAt: null,
            deletedAt: null,
            deletedBy: null,
          };
          await tx.comments.insert(record);
          const view = viewOf(record, tlp);
          await recordEdit(deps, tx, principal, { name: "comment.created", resourceType: "comment", before: null, after: view, now });
          return view;
        }),
      );
    },

    async listOf(principal, parent, query) {
      requireScope(principal, scopeFor(parent.kind, "read"));
      const { limit, cursor } = parse(commentListQuerySchema, query);
      const afterId = decodeCursor(cursor);
      const { tlp, rows } = await withTlpDenialAudit(deps, principal, () =>
        storage.read(async (tx) => {
          const tlp = await loadParent(tx, principal, parent, "view");
          return { tlp, rows: await tx.comments.listByParent(principal.organizationId, parent, { limit: limit + 1, afterId }) };
        }),
      );
      // Every comment carries the thread's marking: AMBER+STRICT and RED threads audit each one seen.
      return showListed(deps, principal, "comment", toPage(rows.map((c) => viewOf(c, tlp)), limit), tlp);
    },

    async get(principal, id) {
      requireOneOf(principal, scopesFor("read"));
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const found = await loadVisible(tx, principal, id, "read", "view");
          await auditView(deps, tx, principal, "comment", found, now);
          return found;
        }),
      );
    },

    async update(principal, id, input) {
      requireOneOf(principal, scopesFor("write"));
      const { body } = parse(commentUpdateSchema, input);
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const before = await loadVisible(tx, principal, id, "write", "edit");
          requireAuthorOrAdmin(principal, before);
          // Sending the same text again changes nothing: no editedAt, no event.
          if (body === before.body) return before;
          const at = now.toISOString();
          const after: CommentView = { ...before, body, editedAt: at, updatedAt: at };
          await tx.comments.update(after);
          await recordEdit(deps, tx, principal, { name: "comment.updated", resourceType: "comment", before, after, now });
          return after;
        }),
      );
    },

    async delete(principal, id) {
      requireOneOf(principal, scopesFor("write"));
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const before = await loadVisible(tx, principal, id, "write", "delete");
          requireAuthorOrAdmin(principal, before);
          const at = now.toISOString();
          const after: CommentView = { ...before, updatedAt: at, deletedAt: at, deletedBy: principal.userId };
          await tx.comments.update(after);
          await recordEdit(deps, tx, principal, { name: "comment.deleted", resourceType: "comment", before, after, now, tlpAction: "delete" });
          return after;
        }),
      );
    },
  };
}
