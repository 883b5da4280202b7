import type { CaseFilter, RecordListFilter } from "../../core/cases/types.js";
import { invalidField } from "../../core/errors.js";
import type { PageRequest } from "../../core/ports/storage.js";
import { toIsoTimestamp } from "./values.js";

/**
 * A case or alert filter with its bounds in canonical ISO form (so they compare with stored
 * timestamps as text in SQLite, and the same way in PostgreSQL), or `null` when nothing can match:
 * an empty any-of list matches no record.
 */
export function normalizeListFilter<F extends RecordListFilter<string>>(filter: F): F | null {
  const lists = [filter.statusValue, filter.severity, filter.tlp, filter.assigneeId, filter.source, filter.typeValue, filter.tag];
  if (lists.some((list) => list !== undefined && list.length === 0)) return null;
  if (filter.createdAfter === undefined && filter.createdBefore === undefined) return filter;
  return {
    ...filter,
    createdAfter: isoBound("createdAfter", filter.createdAfter),
    createdBefore: isoBound("createdBefore", filter.createdBefore),
  };
}

export const normalizeCaseFilter: (filter: CaseFilter) => CaseFilter | null = normalizeListFilter;

/** A time bound in canonical ISO form; a value that is no date-time is the field's 400. */
export function isoBound(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return toIsoTimestamp(value);
  } catch {
    throw invalidField(name, "must be an ISO 8601 date-time");
  }
}

/** The page's limit as a row count: a whole number, at least 0 (0 fetches nothing). */
export function pageLimit(page: PageRequest): number {
  const limit = Math.floor(page.limit);
  return Number.isFinite(limit) && limit > 0 ? limit : 0;
}
