/**
 * Closed means closed: the one rule for changing a case, an alert or a task once the lifecycle
 * has ended it (core/lifecycles). A case or alert is closed while its status is `final` in the
 * organization's lifecycle (in the built-in ones: a case `resolved` or `closed`, an alert
 * `closed` or `imported`); a case's tasks are closed with it while its status is of the `closed`
 * category. Nothing here reads a status's key. A closed record takes only:
 * - the lifecycle moving it on while it stays closed (a resolved case becomes closed), with no
 *   other field changed;
 * - a reopen (a case back to `in_progress`, a closed alert back to `new` or `acknowledged`; an
 *   imported alert never reopens) by whoever the reopening transition's roles admit (built-in: an
 *   admin or the record's assignee as stored before the request: who the caller is, never what
 *   their own edits made the record say; core/lifecycles/engine.ts checks it). The reopening
 *   request may change other fields too: the record it leaves is open.
 * Anything else is refused and changes nothing: record_closed (409) for a field, or for an alert
 * merged into the case (a bulk operation skips the record with that code); invalid_transition
 * (409) for a reopen by someone who may not.
 * A field sent with the value it already has is no change, so a repeated request is not refused.
 *
 * The tasks of a `closed` case take no change either: none is added, changed or deleted, singly or
 * in bulk. A `resolved` case's tasks can still be finished, since its mandatory tasks must be done
 * before it may close.
 * Soft delete and restore of an alert are retention, not edits: they stay open to whoever may do
 * them, and keep the alert's content and status as they are.
 */
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import { caseLifecycleOf, caseLifecycleResolver } from "../lifecycles/case-lifecycle.js";
import { isCategory, isFinal } from "../lifecycles/engine.js";
import type { Lifecycle } from "../lifecycles/types.js";
import type { UnitOfWork } from "../ports/storage.js";
import { canonicalJson } from "../log/chain.js";

/** Fields the lifecycle itself keeps: they change with a status move, never on their own. */
const lifecycleFields = new Set(["statusValue", "updatedAt", "closedAt"]);

/** Whether a record in `status` is closed under `lifecycle` (its status is final). */
export function isClosed(lifecycle: Lifecycle, status: string): boolean {
  return isFinal(lifecycle, status);
}

/**
 * Checks one change of a case or alert: `before` as stored, `after` as the request would leave it
 * (the status move itself, reopening included, is checked by the lifecycle: core/lifecycles/engine.ts).
 * A record that stays closed takes no change of its fields: record_closed. `afterLifecycle` is the
 * lifecycle `after` follows when the change moves a case to a type of another lifecycle.
 */
export function checkClosedChange<T extends { statusValue: string }>(lifecycle: Lifecycle, before: T, after: T, afterLifecycle: Lifecycle = lifecycle): void {
  const from = before.statusValue;
  if (!isClosed(lifecycle, from)) return;
  // A closed case leaves its lifecycle only reopened: a new type's lifecycle is no way round the reopen's roles.
  if (afterLifecycle.key !== lifecycle.key) throw new CaseKitError("record_closed", `A ${from} ${lifecycle.entity} takes no change of lifecycle (typeValue): reopen it first`);
  if (!isClosed(lifecycle, after.statusValue)) return;
  const changed = changedFields(before, after).filter((field) => !lifecycleFields.has(field));
  if (changed.length > 0) {
    throw new CaseKitError("record_closed", `A ${from} ${lifecycle.entity} takes no change (${changed.join(", ")}): reopen it first`);
  }
}

/** Refuses adding to a closed record (an alert merged into a case): record_closed. */
export function checkOpen(lifecycle: Lifecycle, record: { id: string; statusValue: string }): void {
  if (isClosed(lifecycle, record.statusValue)) {
    throw new CaseKitError("record_closed", `The ${lifecycle.entity} ${record.id} is ${record.statusValue}: it takes no change; reopen it first`);
  }
}

/** Whether the tasks of a case in `status` are closed with it (a status of the closed category). */
export function closesItsTasks(caseLifecycle: Lifecycle, status: string): boolean {
  return isCategory(caseLifecycle, status, "closed");
}

/** Refuses a change to a task of a closed case (adding one too): record_closed. */
export async function checkTaskCaseOpen(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, parent: { id: string; organizationId: string; statusValue: string; typeValue: string | null }): Promise<void> {
  if (closesItsTasks(await caseLifecycleOf(deps, tx, parent.organizationId, parent.typeValue), parent.statusValue)) {
    throw new CaseKitError("record_closed", `Case ${parent.id} is closed: its tasks take no change; reopen the case first`);
  }
}

/** What a task takes from its case: the marking it inherits, and whether it is closed with it. */
export interface TaskParent {
  tlp: number;
  closed: boolean;
}

/**
 * The TaskParent of each case found among `caseIds`, read once (one query per 500 ids). A case not
 * found has no entry (its id maps to undefined); callers treat its tasks as marked at the highest
 * TLP. `known` is what earlier calls of the same unit answered: only the cases it does not hold
 * are read, and it is the map answered, so a bulk's pages read each case once, not once a page.
 */
export async function taskParentsOf(
  deps: Pick<CaseKitDeps, "definitions">,
  tx: UnitOfWork,
  organizationId: string,
  caseIds: Iterable<string>,
  known: Map<string, TaskParent | undefined> = new Map(),
): Promise<ReadonlyMap<string, TaskParent | undefined>> {
  const ids = [...new Set(caseIds)].filter((id) => !known.has(id));
  const lifecycleOfType = caseLifecycleResolver(deps, tx, organizationId);
  for (let start = 0; start < ids.length; start += 500) {
    const chunk = ids.slice(start, start + 500);
    for (const id of chunk) known.set(id, undefined);
    for (const found of await tx.cases.findMany(organizationId, chunk)) {
      known.set(found.id, { tlp: found.tlp, closed: closesItsTasks(await lifecycleOfType(found.typeValue), found.statusValue) });
    }
  }
  return known;
}

/** Names of the fields whose values differ (JSON-equal values, keys in any order, are the same). */
export function changedFields(before: object, after: object): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((name) => a[name] !== b[name] && canonicalJson(a[name] ?? null) !== canonicalJson(b[name] ?? null));
}
