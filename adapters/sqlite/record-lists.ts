import type { TlpAuditFilter } from "../../core/tlp/types.js";
import { Conditions } from "./list-query.js";
import { sql } from "./statements.js";

/**
 * The SQL and parameters of the TLP audit list. Filters arrive normalised
 * (adapters/shared/list-filters.ts: no empty lists, canonical time bounds); each member narrows
 * (AND), a list means "any of"; newest first, keyset by id, scoped by organization_id.
 */
type Query = { text: string; params: unknown[] };

/** `actorId` matches the acting user or the acting key; `from` is inclusive, `to` exclusive. */
export function tlpAuditListQuery(organizationId: string, filter: TlpAuditFilter, limit: number, beforeId: string | undefined): Query {
  const where = new Conditions(organizationId)
    .equals("resource_id", filter.resourceId)
    .anyOf("resource_type", filter.resourceType)
    .anyOf("action", filter.action)
    .equals("outcome", filter.outcome);
  if (filter.maxTlp !== undefined) where.add("(tlp_before IS NULL OR tlp_before <= ?) AND (tlp_after IS NULL OR tlp_after <= ?)", filter.maxTlp, filter.maxTlp);
  if (filter.actorId !== undefined) where.add("(actor_user_id = ? OR actor_key_id = ?)", filter.actorId, filter.actorId);
  if (filter.from !== undefined) where.add("at >= ?", filter.from);
  if (filter.to !== undefined) where.add("at < ?", filter.to);
  return where.page(sql.tlpAuditSelect, limit, beforeId);
}
