/**
 * A complete task record, for tests that write tasks through the storage port rather than the
 * task service: each test overrides only the fields its subject is about.
 */
import type { Task } from "../../core/tasks/types.js";

/** A live, waiting task with `id` of case `caseId`, created and updated at `at`. */
export function taskRecord(id: string, organizationId: string, caseId: string, at: string, overrides: Partial<Task> = {}): Task {
  return {
    id,
    organizationId,
    caseId,
    title: "Collect mail headers",
    description: null,
    status: "waiting",
    assigneeId: null,
    dueDate: null,
    mandatory: false,
    tlp: 2,
    order: 1,
    customFields: {},
    createdAt: at,
    updatedAt: at,
    createdBy: null,
    deletedAt: null,
    deletedBy: null,
    ...overrides,
  };
}
