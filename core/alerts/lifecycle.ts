/**
 * The alert lifecycle. An alert arrives `new`; someone looking at it marks it `acknowledged`;
 * triage ends with `closed` (nothing to do) or `imported` (promoted to a case or merged into one).
 *
 * - Anyone who may change the alert moves it forward (new → acknowledged → closed, new → closed)
 *   or hands it back (acknowledged → new).
 * - A `closed` alert takes no change but reopening (to `new` or `acknowledged`), which is for the
 *   organization's admins and the alert's assignee only, as for cases
 *   (core/access/closed-records.ts); a source reporting the same alert again (idempotent
 *   ingestion) also reopens it to `new`, since the thing happened again.
 * - `imported` is set only by promote / merge and is terminal: the case carries the work on, and
 *   the alert takes no change by hand.
 */
export const alertStatuses = ["new", "acknowledged", "closed", "imported"] as const;
export type AlertStatus = (typeof alertStatuses)[number];

/** The statuses PATCH may set (`imported` comes only from promote and merge). */
export const settableAlertStatuses = ["new", "acknowledged", "closed"] as const satisfies readonly AlertStatus[];

const transitions: Record<AlertStatus, readonly AlertStatus[]> = {
  new: ["acknowledged", "closed", "imported"],
  acknowledged: ["new", "closed", "imported"],
  closed: ["new", "acknowledged"],
  imported: [],
};

export function canTransitionAlert(from: AlertStatus, to: AlertStatus): boolean {
  return from === to || transitions[from].includes(to);
}

export { transitions as alertTransitions };
