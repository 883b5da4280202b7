import { invalidField } from "../../core/errors.js";
import type { ObservableFilter } from "../../core/observables/types.js";
import { toIsoTimestamp } from "./values.js";

/**
 * An observable filter ready for SQL in either dialect, or `null` when nothing can match: the
 * rules of the case list (adapters/shared/case-filter.ts): an empty any-of list matches no record,
 * and time bounds are compared in canonical ISO form.
 */
export function normalizeObservableFilter(filter: ObservableFilter): ObservableFilter | null {
  const lists = [filter.dataType, filter.data, filter.tag, filter.caseId, filter.alertId, filter.tlp];
  if (lists.some((list) => list !== undefined && list.length === 0)) return null;
  if (filter.createdAfter === undefined && filter.createdBefore === undefined) return filter;
  return { ...filter, createdAfter: bound("createdAfter", filter.createdAfter), createdBefore: bound("createdBefore", filter.createdBefore) };
}

function bound(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return toIsoTimestamp(value);
  } catch {
    throw invalidField(name, "must be an ISO 8601 date-time");
  }
}
