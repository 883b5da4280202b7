/**
 * The lifecycles every organization has without storing any: today's fixed lifecycles written as
 * data, so an organization that never publishes one keeps the behaviour it always had.
 *
 * - Cases start `new` or `in_progress`, move through work states and end `resolved` then
 *   `closed`; both are final (the case is frozen), `closed` closes its tasks and needs its
 *   mandatory tasks done. Reopening (back to `in_progress`) is for admins and the assignee.
 * - Alerts arrive `new`, are `acknowledged`, end `closed` (nothing to do) or `imported` (promote
 *   or merge only: the `imported` key is reserved for that, see core/alerts/import.ts). A closed
 *   alert reopens for admins and the assignee; an imported one never does.
 * - Tasks wait, are worked on, end `completed` or `cancelled` and may be picked up again.
 */
import type { Lifecycle, LifecycleEntity, TransitionRole } from "./types.js";
import { defaultLifecycleKey } from "./types.js";

const reopeners: TransitionRole[] = ["admin", "assignee"];

const caseLifecycle: Lifecycle = {
  entity: "case",
  key: defaultLifecycleKey,
  version: 0,
  statuses: [
    { key: "new", label: "New", category: "new", final: false, color: null },
    { key: "in_progress", label: "In progress", category: "in_progress", final: false, color: null },
    { key: "on_hold", label: "On hold", category: "on_hold", final: false, color: null },
    { key: "resolved", label: "Resolved", category: "resolved", final: true, color: null },
    { key: "closed", label: "Closed", category: "closed", final: true, color: null },
  ],
  transitions: [
    { from: ["new"], to: "in_progress" },
    { from: ["new", "in_progress"], to: "on_hold" },
    { from: ["on_hold"], to: "in_progress" },
    { from: ["new", "in_progress", "on_hold"], to: "resolved" },
    { from: ["new", "in_progress", "on_hold", "resolved"], to: "closed", requires: ["no_open_mandatory_tasks"] },
    { from: ["resolved", "closed"], to: "in_progress", roles: reopeners },
  ],
};

const alertLifecycle: Lifecycle = {
  entity: "alert",
  key: defaultLifecycleKey,
  version: 0,
  statuses: [
    { key: "new", label: "New", category: "new", final: false, color: null },
    { key: "acknowledged", label: "Acknowledged", category: "in_progress", final: false, color: null },
    { key: "closed", label: "Closed", category: "closed", final: true, color: null },
    { key: "imported", label: "Imported", category: "closed", final: true, color: null },
  ],
  transitions: [
    { from: ["new"], to: "acknowledged" },
    { from: ["acknowledged"], to: "new" },
    { from: ["new", "acknowledged"], to: "closed" },
    { from: ["new", "acknowledged"], to: "imported" },
    { from: ["closed"], to: "new", roles: reopeners },
    { from: ["closed"], to: "acknowledged", roles: reopeners },
  ],
};

const taskLifecycle: Lifecycle = {
  entity: "task",
  key: defaultLifecycleKey,
  version: 0,
  statuses: [
    { key: "waiting", label: "Waiting", category: "new", final: false, color: null },
    { key: "in_progress", label: "In progress", category: "in_progress", final: false, color: null },
    { key: "completed", label: "Completed", category: "resolved", final: true, color: null },
    { key: "cancelled", label: "Cancelled", category: "closed", final: true, color: null },
  ],
  transitions: [
    { from: ["waiting"], to: "in_progress" },
    { from: ["in_progress"], to: "waiting" },
    { from: ["waiting", "in_progress"], to: "completed" },
    { from: ["waiting", "in_progress"], to: "cancelled" },
    { from: ["completed"], to: "in_progress" },
    { from: ["cancelled"], to: "waiting" },
  ],
};

export const defaultLifecycles: Readonly<Record<LifecycleEntity, Lifecycle>> = { case: caseLifecycle, alert: alertLifecycle, task: taskLifecycle };

/** The status key promote and merge give an alert; every alert lifecycle has it. */
export const importedAlertStatus = "imported";
