/**
 * The case lifecycle. A case starts `new` (or `in_progress` when the creator is already on it),
 * moves through work states, and ends `resolved` then `closed`. A resolved or closed case takes no
 * change but closing and reopening (back to `in_progress`), and reopening is for the
 * organization's admins and the case's assignee only, so a closed case cannot be reopened, nor
 * edited, by any analyst who stumbles on it (core/access/closed-records.ts).
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

export { transitions as caseTransitions };
