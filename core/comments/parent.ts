import type { Principal } from "../access/principal.js";
import type { Scope } from "../access/scopes.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { guardTlp } from "../tlp/audit-log.js";
import type { TlpAction, TlpResourceType } from "../tlp/types.js";
import type { CommentParent, CommentParentKind } from "./types.js";

/** One record a comment's visibility depends on: the parent, then the parent's own parents. */
interface Marked {
  resourceType: TlpResourceType;
  id: string;
  tlp: number;
}

/** How one kind of parent is reached: its scopes and its loader. */
interface ParentRule {
  readScope: Scope;
  writeScope: Scope;
  /**
   * The live parent in the organization and every record above it whose marking also applies,
   * parent first; null when there is no such live record (unknown, another tenant's, deleted).
   */
  load(tx: UnitOfWork, organizationId: string, id: string): Promise<Marked[] | null>;
}

/** Cases of the caller's own organization (shared cases are read through GET /cases only). */
async function loadCase(tx: UnitOfWork, organizationId: string, id: string): Promise<Marked[] | null> {
  const found = await tx.cases.findById(organizationId, id);
  return found ? [{ resourceType: "case", id: found.id, tlp: found.tlp }] : null;
}

/** Live alerts only: a soft-deleted alert's comments are out of reach until it is restored. */
async function loadAlert(tx: UnitOfWork, organizationId: string, id: string): Promise<Marked[] | null> {
  const found = await tx.alerts.findById(organizationId, id);
  return found ? [{ resourceType: "alert", id: found.id, tlp: found.tlp }] : null;
}

/** Live tasks only, with their case: a task's comment is as restricted as the task or its case. */
async function loadTask(tx: UnitOfWork, organizationId: string, id: string): Promise<Marked[] | null> {
  const task = await tx.tasks.findById(organizationId, id);
  if (!task) return null;
  const parentCase = await tx.cases.findById(organizationId, task.caseId);
  if (!parentCase) return null;
  return [
    { resourceType: "task", id: task.id, tlp: task.tlp },
    { resourceType: "case", id: parentCase.id, tlp: parentCase.tlp },
  ];
}

/** One entry per parent kind; a kind missing here has no comment routes. */
const rules: { readonly [K in CommentParentKind]?: ParentRule } = {
  case: { readScope: "cases:read", writeScope: "cases:write", load: loadCase },
  alert: { readScope: "alerts:read", writeScope: "alerts:write", load: loadAlert },
  task: { readScope: "tasks:read", writeScope: "tasks:write", load: loadTask },
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
 * The marking a comment on `parent` inherits: the highest of the parent's and its ancestors'
 * (a task's comment is as restricted as the task or its case, whichever is more). Unknown ids,
 * other tenants' records and soft-deleted parents are 404 alike.
 *
 * Without `subject`, each record of the chain is guarded as itself (the thread routes act on the
 * parent). With `subject`, the comment being read or changed is guarded at the inherited marking,
 * so a refusal is audited against the comment. Either way a refusal is a TlpDeniedError, written
 * to the TLP audit log by withTlpDenialAudit.
 */
export async function loadParent(tx: UnitOfWork, principal: Principal, parent: CommentParent, action: TlpAction, subject?: { id: string }): Promise<number> {
  const chain = await ruleOf(parent.kind).load(tx, principal.organizationId, parent.id);
  if (!chain) throw new CaseKitError("not_found", `No ${parent.kind} ${parent.id}`);
  const tlp = Math.max(...chain.map((record) => record.tlp));
  if (subject) guardTlp(principal, { id: subject.id, tlp }, "comment", action);
  else for (const record of chain) guardTlp(principal, record, record.resourceType, action);
  return tlp;
}
