import type { CaseFilter } from "../../core/cases/types.js";
import { Conditions } from "./list-query.js";
import { sql } from "./statements.js";

/**
 * The SQL and parameters of one CaseRepository.list call. Semantics:
 * - every member of the filter narrows the result (AND); a list means "any of";
 * - `maxTlp` leaves out records whose tlp is above it;
 * - `tag` matches a record having a tag object whose `name` is one of the given names;
 * - `createdAfter` / `createdBefore` are exclusive bounds on created_at (`>` and `<`), given in
 *   canonical ISO form (adapters/shared/case-filter.ts), so text comparison is time comparison;
 * - `beforeId` is the keyset position: only ids below it; the order is id DESC (newest first);
 * - every query is scoped by `organization_id`.
 *
 * One-value lists become `col = ?` and several values one bound JSON array (see Conditions).
 * Rows come back as one JSON object text each (`sql.caseSelectJson`).
 */
export function caseListQuery(
  organizationId: string,
  filter: CaseFilter,
  limit: number,
  beforeId: string | undefined,
): { text: string; params: unknown[] } {
  const where = new Conditions(organizationId).add("tlp <= ?", filter.maxTlp);
  where.anyOf("status_value", filter.statusValue);
  where.anyOf("severity", filter.severity);
  where.anyOf("tlp", filter.tlp);
  where.anyOf("assignee_id", filter.assigneeId);
  where.anyOf("source", filter.source);
  where.anyOf("type_value", filter.typeValue);
  if (filter.tag !== undefined) {
    where.add(
      "EXISTS (SELECT 1 FROM json_each(cases.tags) AS tag WHERE json_extract(tag.value, '$.name') IN (SELECT value FROM json_each(?)))",
      JSON.stringify(filter.tag),
    );
  }
  if (filter.createdAfter !== undefined) where.add("created_at > ?", filter.createdAfter);
  if (filter.createdBefore !== undefined) where.add("created_at < ?", filter.createdBefore);
  return where.page(sql.caseSelectJson, limit, beforeId);
}
