import type { Principal } from "../access/principal.js";
import { visibleUpTo } from "../access/clearance.js";
import type { TaskBulkFilters } from "./schema.js";
import type { TaskFilter } from "./types.js";

/** Parsed list or bulk filters as a repository filter, bounded by the caller's clearance. */
export function toTaskFilter(principal: Principal, filters: Partial<TaskBulkFilters>): TaskFilter {
  const filter: TaskFilter = { maxTlp: visibleUpTo(principal.tlpClearance) };
  if (filters.status !== undefined) filter.status = filters.status;
  if (filters.assigneeId !== undefined) filter.assigneeId = filters.assigneeId;
  if (filters.caseId !== undefined) filter.caseId = filters.caseId;
  if (filters.mandatory !== undefined) filter.mandatory = filters.mandatory;
  if (filters.tlp !== undefined) filter.tlp = filters.tlp;
  if (filters.dueAfter !== undefined) filter.dueAfter = filters.dueAfter;
  if (filters.dueBefore !== undefined) filter.dueBefore = filters.dueBefore;
  return filter;
}
