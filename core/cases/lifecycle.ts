/**
 * The built-in case lifecycle (core/lifecycles/defaults.ts), in the shapes casekit exported before
 * lifecycles became data. An organization may publish its own (core/lifecycles/service.ts): a
 * case's status is then any key of that lifecycle, so `CaseStatus` is a string.
 */
import { defaultLifecycles } from "../lifecycles/defaults.js";
import { defaultKeys, defaultTransitionTable, initialKeys } from "../lifecycles/tables.js";

export type CaseStatus = string;

export const caseStatuses = defaultKeys(defaultLifecycles.case) as readonly ["new", "in_progress", "on_hold", "resolved", "closed"];
export const initialCaseStatuses = initialKeys(defaultLifecycles.case) as readonly ["new", "in_progress"];

const transitions = defaultTransitionTable(defaultLifecycles.case);

/** Whether the built-in lifecycle leads from `from` to `to` (roles and gates aside). */
export function canTransition(from: CaseStatus, to: CaseStatus): boolean {
  return from === to || (transitions[from] ?? []).includes(to);
}

export { transitions as caseTransitions };
