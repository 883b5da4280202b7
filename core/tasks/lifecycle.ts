/**
 * The task lifecycle: a task waits, is worked on, and ends completed or cancelled. A finished
 * task may be picked up again (completed → in_progress, cancelled → waiting), so a task closed by
 * mistake needs no copy. Open tasks (waiting, in_progress) are what keeps a case with mandatory
 * tasks from closing.
 */
export const taskStatuses = ["waiting", "in_progress", "completed", "cancelled"] as const;
export type TaskStatus = (typeof taskStatuses)[number];

/** What a new task may start as. */
export const initialTaskStatuses = ["waiting", "in_progress"] as const satisfies readonly TaskStatus[];

export const openTaskStatuses = ["waiting", "in_progress"] as const satisfies readonly TaskStatus[];

const transitions: Record<TaskStatus, readonly TaskStatus[]> = {
  waiting: ["in_progress", "completed", "cancelled"],
  in_progress: ["waiting", "completed", "cancelled"],
  completed: ["in_progress"],
  cancelled: ["waiting"],
};

/** Staying in the same status is always allowed (a no-op). */
export function canTransitionTask(from: TaskStatus, to: TaskStatus): boolean {
  return from === to || transitions[from].includes(to);
}

export function isOpenTask(status: TaskStatus): boolean {
  return (openTaskStatuses as readonly TaskStatus[]).includes(status);
}

export { transitions as taskTransitions };
