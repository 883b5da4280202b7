import { invalidField } from "../../core/errors.js";
import type { TlpAuditFilter } from "../../core/tlp/types.js";
import { toIsoTimestamp } from "./values.js";

/**
 * The list filter of the TLP audit log, ready for SQL in either dialect, or `null` when nothing
 * can match. The rules are the case list's
 * (adapters/shared/case-filter.ts): every member narrows (AND), a list means "any of", an empty
 * list matches no record, and time bounds are compared in canonical ISO form.
 */

const anyEmpty = (lists: readonly (readonly unknown[] | undefined)[]): boolean => lists.some((list) => list !== undefined && list.length === 0);

/** `from` (inclusive) and `to` (exclusive) in canonical ISO form; an invalid one is invalid_request. */
export function normalizeTlpAuditFilter(filter: TlpAuditFilter): TlpAuditFilter | null {
  if (anyEmpty([filter.resourceType, filter.action])) return null;
  if (filter.from === undefined && filter.to === undefined) return filter;
  return { ...filter, from: bound("from", filter.from), to: bound("to", filter.to) };
}

function bound(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return toIsoTimestamp(value);
  } catch {
    throw invalidField(name, "must be an ISO 8601 date-time");
  }
}
