/**
 * Closed means closed: the one rule for changing a case, an alert or a task once the lifecycle
 * has ended it (cases/lifecycle.ts, alerts/lifecycle.ts).
 *
 * A case is closed while `resolved` or `closed`, an alert while `closed` or `imported`. A closed
 * record takes only:
 * - the lifecycle moving it on while it stays closed (a resolved case becomes closed), with no
 *   other field changed;
 * - a reopen (a case back to `in_progress`, a closed alert back to `new` or `acknowledged`; an
 *   imported alert never reopens) by an admin or by the record's assignee as stored before the
 *   request: who the caller is, never what their own edits made the record say. The reopening
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
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import type { Principal } from "./principal.js";

export type ClosableKind = "case" | "alert";

const closedStatuses: Record<ClosableKind, readonly string[]> = {
  case: ["resolved", "closed"],
  alert: ["closed", "imported"],
};

/** Fields the lifecycle itself keeps: they change with a status move, never on their own. */
const lifecycleFields = new Set(["statusValue", "updatedAt", "closedAt"]);

/** Whether a case or alert in `status` is closed. */
export function isClosed(kind: ClosableKind, status: string): boolean {
  return closedStatuses[kind].includes(status);
}

/** Who may reopen a closed record: the organization's admins and the record's assignee as stored. */
export function mayReopen(principal: Principal, stored: { assigneeId: string | null }): boolean {
  return principal.role === "admin" || (stored.assigneeId !== null && principal.userId === stored.assigneeId);
}

/**
 * Checks one change of a case or alert: `before` as stored, `after` as the request would leave it
 * (the status move itself is checked against the transition table first, by the caller).
 */
export function checkClosedChange<T extends { statusValue: string; assigneeId: string | null }>(principal: Principal, kind: ClosableKind, before: T, after: T): void {
  const from = before.statusValue;
  if (!isClosed(kind, from)) return;
  if (!isClosed(kind, after.statusValue)) {
    if (!mayReopen(principal, before)) throw new CaseKitError("invalid_transition", `Only an admin or the ${kind}'s assignee may reopen a ${from} ${kind}`);
    return;
  }
  const changed = changedFields(before, after).filter((field) => !lifecycleFields.has(field));
  if (changed.length > 0) {
    throw new CaseKitError("record_closed", `A ${from} ${kind} takes no change (${changed.join(", ")}): reopen it first`);
  }
}

/** Refuses adding to a closed record (an alert merged into a case): record_closed. */
export function checkOpen(kind: ClosableKind, record: { id: string; statusValue: string }): void {
  if (isClosed(kind, record.statusValue)) {
    throw new CaseKitError("record_closed", `The ${kind} ${record.id} is ${record.statusValue}: it takes no change; reopen it first`);
  }
}

/** Whether the tasks of a case in `status` are closed with it. */
export function closesItsTasks(status: string): boolean {
  return status === "closed";
}

/** Refuses a change to a task of a closed case (adding one too): record_closed. */
export function checkTaskCaseOpen(parent: { id: string; statusValue: string }): void {
  if (closesItsTasks(parent.statusValue)) {
    throw new CaseKitError("record_closed", `Case ${parent.id} is closed: its tasks take no change; reopen the case first`);
  }
}

/** The cases among `caseIds` whose tasks are closed with them (one query per 500 ids). */
export async function closedTaskCases(tx: UnitOfWork, organizationId: string, caseIds: Iterable<string>): Promise<Set<string>> {
  const ids = [...new Set(caseIds)];
  const closed = new Set<string>();
  for (let start = 0; start < ids.length; start += 500) {
    for (const found of await tx.cases.findMany(organizationId, ids.slice(start, start + 500))) if (closesItsTasks(found.statusValue)) closed.add(found.id);
  }
  return closed;
}

/** Names of the fields whose values differ (JSON-equal values, keys in any order, are the same). */
export function changedFields(before: object, after: object): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((name) => a[name] !== b[name] && canonical(a[name]) !== canonical(b[name]));
}

function canonical(value: unknown): string | undefined {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}
