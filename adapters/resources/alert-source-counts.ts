/**
 * Alerts by source (AlertRepository.countBySource), written once for both dialects. Whole hours
 * are summed from alert_source_counts, which triggers on `alerts` keep exact (the migrations that
 * created it; each schema.ts keeps it as a hand-written drizzle table: a composite key, no id) and
 * whose key starts (organization_id, source): without bounds that is one walk of the
 * organization's counters, already grouped by source. The partial hours at the edges of
 * [from, to) are counted from the covering index alerts_organization_id_created_at_idx, one seek
 * to each edge's start (shared/source-count-ranges.ts splits the range).
 */
import type { AlertSourceCount, AlertSourceCountFilter } from "../../core/alerts/types.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { Query } from "../declare/sql.js";
import type { TimeRange } from "../shared/source-count-ranges.js";
import { sourceCountRanges } from "../shared/source-count-ranges.js";
import { timestampBound } from "../shared/timestamp-bound.js";

/** One SELECT of the statement: the counters, or the alerts of one edge. */
interface Part {
  from: "counters" | "alerts";
  range: TimeRange;
}

type Statuses = "" | "one" | "many";

/** The statement's text per shape (which parts, which bounds, how many statuses), built once per dialect. */
const texts = oncePerDialect(() => new Map<string, string>());

export async function countBySource(dialect: Dialect, executor: Executor, organizationId: string, filter: AlertSourceCountFilter): Promise<AlertSourceCount[]> {
  const query = sourceCountQuery(dialect, organizationId, filter);
  if (query === null) return [];
  const rows = await executor.all(query.text, query.params);
  return rows.map((row) => ({ source: String(row.source), count: Number(row.count) }));
}

/** The statement and its parameters, or null when no alert can match (no status asked for). */
export function sourceCountQuery(dialect: Dialect, organizationId: string, filter: AlertSourceCountFilter): Query | null {
  const statusValues = filter.statusValue;
  if (statusValues !== undefined && statusValues.length === 0) return null;
  const statuses: Statuses = statusValues === undefined ? "" : statusValues.length === 1 ? "one" : "many";
  const { counters, edges } = sourceCountRanges({ from: timestampBound("from", filter.from), to: timestampBound("to", filter.to) });
  const parts: Part[] = [...(counters === null ? [] : [{ from: "counters" as const, range: counters }]), ...edges.map((range) => ({ from: "alerts" as const, range }))];

  // Each part binds, in its text's order: organization, clearance, statuses, then its bounds.
  const params: unknown[] = [];
  for (const { range } of parts) {
    params.push(organizationId, filter.maxTlp);
    if (statusValues !== undefined) params.push(statuses === "one" ? statusValues[0] : dialect.list(statusValues));
    if (range.from !== undefined) params.push(range.from);
    if (range.to !== undefined) params.push(range.to);
  }
  const key = `${statuses}|${parts.map(({ from, range }) => `${from}${range.from === undefined ? "" : "f"}${range.to === undefined ? "" : "t"}`).join(",")}`;
  const cache = texts(dialect);
  let text = cache.get(key);
  if (text === undefined) cache.set(key, (text = countText(dialect, statuses, parts)));
  return { text, params };
}

function countText(dialect: Dialect, statuses: Statuses, parts: readonly Part[]): string {
  let n = 0;
  const next = () => dialect.param(++n);
  const conditions = (time: string, range: TimeRange): string => {
    const where = [`organization_id = ${next()}`, `tlp <= ${next()}`];
    if (statuses === "one") where.push(`status_value = ${next()}`);
    if (statuses === "many") where.push(dialect.anyOf("status_value", next()));
    if (range.from !== undefined) where.push(`${time} >= ${next()}`);
    if (range.to !== undefined) where.push(`${time} < ${next()}`);
    return where.join(" AND ");
  };
  const selects = parts.map(({ from, range }) =>
    from === "counters"
      ? `SELECT source, sum(count) AS count FROM alert_source_counts WHERE ${conditions("bucket", range)} GROUP BY source`
      : `SELECT source, count(*) AS count FROM alerts${dialect.indexedBy?.("alerts_organization_id_created_at_idx") ?? ""} WHERE deleted_at IS NULL AND ${conditions("created_at", range)} GROUP BY source`,
  );
  if (selects.length === 1) return `${selects[0]} ORDER BY source`;
  return `SELECT source, sum(count) AS count FROM (${selects.join(" UNION ALL ")}) AS parts GROUP BY source ORDER BY source`;
}
