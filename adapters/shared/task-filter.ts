import { invalidField } from "../../core/errors.js";
import type { TaskFilter } from "../../core/tasks/types.js";
import { toIsoTimestamp } from "./values.js";

/**
 * A task filter ready for SQL in either dialect, or `null` when nothing can match: the rules of
 * the case list (adapters/shared/case-filter.ts): an empty any-of list matches no record, and
 * due bounds are compared in canonical ISO form.
 */
export function normalizeTaskFilter(filter: TaskFilter): TaskFilter | null {
  const lists = [filter.status, filter.assigneeId, filter.caseId, filter.tlp];
  if (lists.some((list) => list !== undefined && list.length === 0)) return null;
  if (filter.dueAfter === undefined && filter.dueBefore === undefined) return filter;
  return { ...filter, dueAfter: bound("dueAfter", filter.dueAfter), dueBefore: bound("dueBefore", filter.dueBefore) };
}

function bound(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return toIsoTimestamp(value);
  } catch {
    throw invalidField(name, "must be an ISO 8601 date-time");
  }
}
