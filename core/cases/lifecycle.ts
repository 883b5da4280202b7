/**
 * The case lifecycle. A case starts `new` (or `in_progress` when the creator is already on it),
 * moves through work states, and ends `resolved` then `closed`. Reopening (from `resolved` or
 * `closed` back to `in_progress`) is allowed to the organization's admins and to the case's
 * assignee only, so a closed case cannot be reopened by any analyst who stumbles on it.
 */
export const caseStatuses = ["new", "in_progress", "on_hold", "resolved", "closed"] as const;
export type CaseStatus = (typeof caseStatuses)[number];

export const initialCaseStatuses = ["new", "in_progress"] as const satisfies readonly CaseStatus[];

const transitions: Record<CaseStatus, readonly CaseStatus[]> = {
  new: ["in_progress", "on_hold", "resolved", "closed"],
  in_progress: ["on_hold", "resolved", "closed"],
  on_hold: ["in_progress", "resolved", "closed"],
  resolved: ["closed", "in_progress"],
  closed: ["in_progress"],
};

export function canTransition(from: CaseStatus, to: CaseStatus): boolean {
  return from === to || transitions[from].includes(to);
}

/** A reopen leaves a terminal state; only admins and the assignee may do it. */
export function isReopen(from: CaseStatus, to: CaseStatus): boolean {
  return (from === "resolved" || from === "closed") && to === "in_progress";
}

export function isTerminal(status: CaseStatus): boolean {
  return status === "resolved" || status === "closed";
}

export { transitions as caseTransitions };
