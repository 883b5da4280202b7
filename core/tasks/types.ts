import type { CustomFieldMatch } from "../cases/types.js";
import type { TaskStatus } from "./lifecycle.js";

/**
 * A task of one case. Its TLP defaults to the case's; reaching it needs both the task's and the
 * case's marking within the caller's clearance. `order` (stored as sort_order) is the position
 * people arrange the case's tasks in; lists stay newest first (keyset by id).
 */
export interface Task {
  id: string;
  organizationId: string;
  caseId: string;
  title: string;
  description: string | null;
  status: TaskStatus;
  assigneeId: string | null;
  dueDate: string | null;
  mandatory: boolean;
  tlp: number;
  order: number;
  /** Values of the organization's task custom fields (free-form while it defines none). */
  customFields: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  /** Set once soft-deleted; repositories never hand back a deleted task. */
  deletedAt: string | null;
  deletedBy: string | null;
}

/** A live task with its case's marking (the higher of the two governs access). */
export interface TaskWithCase {
  task: Task;
  caseTlp: number;
}

/** What a list may filter on; every member narrows (AND), arrays mean "any of". */
export interface TaskFilter {
  /** Tasks above this TLP, or whose case is above it, are left out (the caller's clearance). */
  maxTlp: number;
  status?: TaskStatus[];
  assigneeId?: string[];
  caseId?: string[];
  mandatory?: boolean;
  tlp?: number[];
  /** Due at or after (inclusive) / before (exclusive); tasks without a due date never match a bound. */
  dueAfter?: string;
  dueBefore?: string;
  /** `cf.<key>=<value>` filters, all of which must hold (at most maxCustomFieldFilters). */
  customField?: CustomFieldMatch[];
}
