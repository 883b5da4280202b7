import type { Principal } from "../access/principal.js";
import type { Scope } from "../access/scopes.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { guardTlp } from "../tlp/audit-log.js";
import { effectiveTlp } from "../tlp/effective.js";
import { loadLineage } from "../tlp/lineage.js";
import type { TlpAction } from "../tlp/types.js";
import type { CommentParent, CommentParentKind } from "./types.js";

/** Which scopes reach one kind of parent's comments. */
interface ParentRule {
  readScope: Scope;
  writeScope: Scope;
}

/** One entry per parent kind; a kind missing here has no comment routes. */
const rules: { readonly [K in CommentParentKind]?: ParentRule } = {
  case: { readScope: "cases:read", writeScope: "cases:write" },
  alert: { readScope: "alerts:read", writeScope: "alerts:write" },
  task: { readScope: "tasks:read", writeScope: "tasks:write" },
};

/** The parent kinds comments can be put on. */
export const commentParentKindsServed = (Object.keys(rules) as CommentParentKind[]).filter((kind) => rules[kind] !== undefined);

function ruleOf(kind: CommentParentKind): ParentRule {
  const rule = rules[kind];
  if (!rule) throw new CaseKitError("not_found", `Comments on ${kind}s are not available`);
  return rule;
}

/** The scope that reads (or writes) comments of `kind`: the parent's own. */
export function scopeFor(kind: CommentParentKind, access: "read" | "write"): Scope {
  const rule = ruleOf(kind);
  return access === "read" ? rule.readScope : rule.writeScope;
}

/** Every scope that reads (or writes) comments of some kind. */
export function scopesFor(access: "read" | "write"): Scope[] {
  return commentParentKindsServed.map((kind) => scopeFor(kind, access));
}

/**
 * The marking a comment on `parent` inherits: the parent's effective TLP, the highest of its own
 * and its ancestors' (core/tlp/lineage.ts: a task's comment is as restricted as the task or its
 * case, whichever is more). Unknown ids, other tenants' records and soft-deleted parents (or a
 * parent's deleted parent) are 404 alike.
 *
 * Without `subject`, the parent is guarded at that marking (the thread routes act on the parent).
 * With `subject`, the comment being read or changed is, so a refusal is audited against the
 * comment. Either way a refusal is a TlpDeniedError, written to the TLP audit log by
 * withTlpDenialAudit.
 */
export async function loadParent(tx: UnitOfWork, principal: Principal, parent: CommentParent, action: TlpAction, subject?: { id: string }): Promise<number> {
  ruleOf(parent.kind);
  const lineage = await loadLineage(tx, principal.organizationId, parent);
  const tlp = effectiveTlp(0, lineage.map((marking) => marking.tlp));
  if (subject) guardTlp(principal, { id: subject.id, tlp }, "comment", action);
  else guardTlp(principal, { id: parent.id, tlp }, parent.kind, action);
  return tlp;
}
