/**
 * The built-in task lifecycle (core/lifecycles/defaults.ts), in the shapes casekit exported
 * before lifecycles became data. A task in a status that is not final is open: an open mandatory
 * task keeps its case from closing.
 */
import { defaultLifecycles } from "../lifecycles/defaults.js";
import { defaultKeys, defaultTransitionTable, initialKeys, openKeys } from "../lifecycles/tables.js";

export type TaskStatus = string;

export const taskStatuses = defaultKeys(defaultLifecycles.task) as readonly ["waiting", "in_progress", "completed", "cancelled"];

/** What a new task may start as. */
export const initialTaskStatuses = initialKeys(defaultLifecycles.task) as readonly ["waiting", "in_progress"];

export const openTaskStatuses = openKeys(defaultLifecycles.task) as readonly ["waiting", "in_progress"];

const transitions = defaultTransitionTable(defaultLifecycles.task);

/** Staying in the same status is always allowed (a no-op). */
export function canTransitionTask(from: TaskStatus, to: TaskStatus): boolean {
  return from === to || (transitions[from] ?? []).includes(to);
}

export function isOpenTask(status: TaskStatus): boolean {
  return (openTaskStatuses as readonly TaskStatus[]).includes(status);
}

export { transitions as taskTransitions };
