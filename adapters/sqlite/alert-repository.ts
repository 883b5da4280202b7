import type { AlertFilter, AlertSourceCountFilter } from "../../core/alerts/types.js";
import type { AlertRepository } from "../../core/ports/storage.js";
import type { AlertRow } from "../shared/alert-rows.js";
import {
  alertColumns,
  alertFromRow,
  alertMutableColumns,
  alertToRow,
  normalizeAlertFilter,
  normalizeAlertSourceCountFilter,
} from "../shared/alert-rows.js";
import { pageLimit } from "../shared/case-filter.js";
import { sourceCountRanges } from "../shared/source-count-ranges.js";
import { likePattern, toIsoTimestamp } from "../shared/values.js";
import { translateError } from "./errors.js";
import { Conditions } from "./list-query.js";
import type { UnitState } from "./repositories.js";
import type { Statements } from "./statements.js";
import { unitGuards } from "../shared/unit-state.js";

const columns = alertColumns.join(", ");
const live = "deleted_at IS NULL";

const sql = {
  insert: `INSERT INTO alerts (${columns}) VALUES (${alertColumns.map((c) => `@${c}`).join(", ")})`,
  byId: `SELECT ${columns} FROM alerts WHERE organization_id = ? AND id = ? AND ${live}`,
  byIdAny: `SELECT ${columns} FROM alerts WHERE organization_id = ? AND id = ?`,
  // The partial unique index alerts_source_ref_unique serves this: one seek, the highest TLP first.
  bySourceRef: `SELECT ${columns} FROM alerts WHERE organization_id = ? AND source = ? AND source_ref = ? AND tlp <= ? AND ${live} ORDER BY tlp DESC LIMIT 1`,
  // One bound JSON array, so each statement is prepared once whatever the number of ids.
  many: `SELECT ${columns} FROM alerts WHERE organization_id = ? AND id IN (SELECT value FROM json_each(?)) AND ${live}`,
  assign: `UPDATE alerts SET assignee_id = ?, updated_at = ? WHERE organization_id = ? AND id IN (SELECT value FROM json_each(?)) AND ${live}`,
  update: `UPDATE alerts SET ${alertMutableColumns.map((c) => `${c} = @${c}`).join(", ")} WHERE organization_id = @organization_id AND id = @id`,
  select: `SELECT ${columns} FROM alerts`,
} as const;

/**
 * The SQL and parameters of one list call (semantics: AlertRepository.list, filter normalised).
 * One-value lists become `col = ?`, so an (organization_id, col, id) index yields the page in order.
 */
export function alertListQuery(organizationId: string, filter: AlertFilter, limit: number, beforeId: string | undefined) {
  const where = new Conditions(organizationId);
  if (!filter.includeDeleted) where.add(live);
  where
    .add("tlp <= ?", filter.maxTlp)
    .anyOf("status_value", filter.statusValue)
    .anyOf("severity", filter.severity)
    .anyOf("assignee_id", filter.assigneeId)
    .anyOf("source", filter.source)
    .anyOf("type_value", filter.typeValue)
    .anyOf("tlp", filter.tlp);
  if (filter.tag !== undefined) {
    where.add(
      "EXISTS (SELECT 1 FROM json_each(alerts.tags) AS tag WHERE json_extract(tag.value, '$.name') IN (SELECT value FROM json_each(?)))",
      JSON.stringify(filter.tag),
    );
  }
  // SQLite's LIKE ignores the case of ASCII letters.
  if (filter.q !== undefined) where.add("title LIKE ? ESCAPE '\\'", likePattern(filter.q));
  if (filter.createdAfter !== undefined) where.add("created_at > ?", filter.createdAfter);
  if (filter.createdBefore !== undefined) where.add("created_at < ?", filter.createdBefore);
  return where.page(sql.select, limit, beforeId);
}

/**
 * The alerts-by-source statement. Whole hours are summed from alert_source_counts (kept exact by
 * the triggers of migration 0004), whose key starts (organization_id, source): without bounds
 * that is one walk of the organization's counters, already grouped by source. The partial hours
 * at the edges of [from, to) are counted from the covering index alerts_organization_id_created_at_idx,
 * one seek to each edge's start.
 */
export function alertSourceCountQuery(organizationId: string, filter: AlertSourceCountFilter): { text: string; params: unknown[] } {
  const { counters, edges } = sourceCountRanges(filter);
  const parts: { text: string; params: unknown[] }[] = [];
  if (counters !== null) {
    const where = new Conditions(organizationId).add("tlp <= ?", filter.maxTlp).anyOf("status_value", filter.statusValue);
    if (counters.from !== undefined) where.add("bucket >= ?", counters.from);
    if (counters.to !== undefined) where.add("bucket < ?", counters.to);
    parts.push({ text: `SELECT source, sum(count) AS count FROM alert_source_counts WHERE ${where.where.join(" AND ")} GROUP BY source`, params: where.params });
  }
  for (const edge of edges) {
    const where = new Conditions(organizationId).add(live).add("tlp <= ?", filter.maxTlp).anyOf("status_value", filter.statusValue);
    if (edge.from !== undefined) where.add("created_at >= ?", edge.from);
    if (edge.to !== undefined) where.add("created_at < ?", edge.to);
    parts.push({
      text: `SELECT source, count(*) AS count FROM alerts INDEXED BY alerts_organization_id_created_at_idx WHERE ${where.where.join(" AND ")} GROUP BY source`,
      params: where.params,
    });
  }
  if (parts.length === 1) return { text: `${parts[0]!.text} ORDER BY source`, params: parts[0]!.params };
  return {
    text: `SELECT source, sum(count) AS count FROM (${parts.map((p) => p.text).join(" UNION ALL ")}) GROUP BY source ORDER BY source`,
    params: parts.flatMap((p) => p.params),
  };
}

/** The SQLite AlertRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createAlertRepository(statements: Statements, unit: UnitState): AlertRepository {
  const { reading, writing } = unitGuards(unit);
  const one = (text: string, ...params: unknown[]) => {
    const row = statements.get(text).get(...params) as AlertRow | undefined;
    return row ? alertFromRow(row) : null;
  };
  // A refused statement leaves SQLite's transaction as it was, so the unit stays usable.
  const run = (text: string, params: object): number => {
    try {
      return statements.get(text).run(params).changes;
    } catch (error) {
      throw translateError(error);
    }
  };

  return {
    async insert(record) {
      writing();
      run(sql.insert, alertToRow(record));
    },
    async findById(organizationId, id, options = {}) {
      reading();
      return one(options.includeDeleted ? sql.byIdAny : sql.byId, organizationId, id);
    },
    async findBySourceRef(organizationId, source, sourceRef, maxTlp) {
      reading();
      return one(sql.bySourceRef, organizationId, source, sourceRef, maxTlp);
    },
    async update(record) {
      writing();
      const row = alertToRow(record);
      const values = Object.fromEntries(["id", "organization_id", ...alertMutableColumns].map((c) => [c, row[c as keyof typeof row]]));
      return run(sql.update, values) > 0;
    },
    async findMany(organizationId, ids) {
      reading();
      if (ids.length === 0) return [];
      return (statements.get(sql.many).all(organizationId, JSON.stringify(ids)) as AlertRow[]).map(alertFromRow);
    },
    async assignMany(organizationId, ids, assigneeId, updatedAt) {
      writing();
      if (ids.length === 0) return 0;
      try {
        return statements.get(sql.assign).run(assigneeId, toIsoTimestamp(updatedAt), organizationId, JSON.stringify(ids)).changes;
      } catch (error) {
        throw translateError(error);
      }
    },
    async list(organizationId, filter, page) {
      reading();
      const limit = pageLimit(page);
      const normalized = normalizeAlertFilter(filter);
      if (limit === 0 || normalized === null) return [];
      const query = alertListQuery(organizationId, normalized, limit, page.beforeId);
      return (statements.getDynamic(query.text).all(...query.params) as AlertRow[]).map(alertFromRow);
    },
    async countBySource(organizationId, filter) {
      reading();
      const normalized = normalizeAlertSourceCountFilter(filter);
      if (normalized === null) return [];
      const query = alertSourceCountQuery(organizationId, normalized);
      return (statements.getDynamic(query.text).all(...query.params) as { source: string; count: number }[]).map((r) => ({ source: r.source, count: Number(r.count) }));
    },
  };
}
