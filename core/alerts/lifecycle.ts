/**
 * The built-in alert lifecycle (core/lifecycles/defaults.ts), in the shapes casekit exported
 * before lifecycles became data. `imported` is set only by promote and merge and is terminal;
 * every alert lifecycle keeps it.
 */
import { defaultLifecycles } from "../lifecycles/defaults.js";
import { defaultKeys, defaultTransitionTable } from "../lifecycles/tables.js";

export type AlertStatus = string;

export const alertStatuses = defaultKeys(defaultLifecycles.alert) as readonly ["new", "acknowledged", "closed", "imported"];

/** The statuses PATCH may set in the built-in lifecycle (`imported` comes only from promote and merge). */
export const settableAlertStatuses = ["new", "acknowledged", "closed"] as const satisfies readonly AlertStatus[];

const transitions = defaultTransitionTable(defaultLifecycles.alert);

export function canTransitionAlert(from: AlertStatus, to: AlertStatus): boolean {
  return from === to || (transitions[from] ?? []).includes(to);
}

export { transitions as alertTransitions };
