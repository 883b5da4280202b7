import type { SQL } from "drizzle-orm";
import { and, desc, eq, gt, gte, ilike, inArray, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { Alert, AlertFilter, AlertSourceCountFilter } from "../../core/alerts/types.js";
import type { AlertRepository } from "../../core/ports/storage.js";
import type { AlertRow } from "../shared/alert-rows.js";
import { alertFromRow, alertMutableColumns, alertToRow, normalizeAlertFilter, normalizeAlertSourceCountFilter } from "../shared/alert-rows.js";
import { pageLimit } from "../shared/case-filter.js";
import { sourceCountRanges } from "../shared/source-count-ranges.js";
import { uniqueViolation } from "../shared/conflicts.js";
import { likePattern, toIsoTimestamp } from "../shared/values.js";
import { guard } from "./errors.js";
import type { UnitState } from "./repositories.js";
import { rowSelection, rowValues } from "./rows.js";
import { alertSourceCounts, alerts } from "./schema.js";
import { unitGuards } from "../shared/unit-state.js";

/** Compile-time proof that the table's columns are exactly the shared row's keys. */
type ColumnNames = { [K in keyof (typeof alerts)["_"]["columns"]]: (typeof alerts)["_"]["columns"][K]["_"]["name"] }[keyof (typeof alerts)["_"]["columns"]];
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
export const _alertColumnsMatch: Same<ColumnNames, keyof AlertRow> = true;

const alertRow = rowSelection(alerts);
const live = isNull(alerts.deletedAt);
const toAlert = (row: Record<string, unknown>): Alert => alertFromRow(row as unknown as AlertRow);

function conditions(filter: AlertFilter): SQL[] {
  const where: SQL[] = [lte(alerts.tlp, filter.maxTlp)];
  if (!filter.includeDeleted) where.push(live);
  // One value is `=`, so an (organization_id, column, id) index walks the page in order.
  const anyOf = <T>(column: Parameters<typeof eq>[0], values: readonly T[] | undefined) => {
    if (values) where.push(values.length === 1 ? eq(column, values[0]) : inArray(column, values as T[]));
  };
  anyOf(alerts.statusValue, filter.statusValue);
  anyOf(alerts.severity, filter.severity);
  anyOf(alerts.assigneeId, filter.assigneeId);
  anyOf(alerts.source, filter.source);
  anyOf(alerts.typeValue, filter.typeValue);
  anyOf(alerts.tlp, filter.tlp);
  if (filter.tag) {
    // jsonb containment, which the GIN index alerts_tags_idx serves.
    const matches = filter.tag.map((name) => sql`${alerts.tags} @> ${JSON.stringify([{ name }])}::jsonb`);
    where.push(or(...matches) ?? sql`false`);
  }
  // PostgreSQL's LIKE escape character is `\` by default, which likePattern uses.
  if (filter.q !== undefined) where.push(ilike(alerts.title, likePattern(filter.q)));
  if (filter.createdAfter !== undefined) where.push(gt(alerts.createdAt, filter.createdAfter));
  if (filter.createdBefore !== undefined) where.push(lt(alerts.createdAt, filter.createdBefore));
  return where;
}

/** One list call's statement (semantics: AlertRepository.list), filter already normalised. */
export function alertListStatement(db: NodePgDatabase, organizationId: string, filter: AlertFilter, limit: number, beforeId: string | undefined) {
  const keyset = beforeId === undefined ? [] : [lt(alerts.id, beforeId)];
  return db
    .select(alertRow)
    .from(alerts)
    .where(and(eq(alerts.organizationId, organizationId), ...conditions(filter), ...keyset))
    .orderBy(desc(alerts.id))
    .limit(limit);
}

/**
 * The alerts-by-source statement. Whole hours are summed from alert_source_counts (kept exact by
 * the triggers of migration 0005), whose primary key starts (organization_id, source): without
 * bounds that is one walk of the organization's counters. The partial hours at the edges of
 * [from, to) are counted from the covering index alerts_organization_id_created_at_idx, one seek
 * to each edge's start.
 */
export function alertSourceCountStatement(organizationId: string, filter: AlertSourceCountFilter): SQL {
  const { counters, edges } = sourceCountRanges(filter);
  const statuses = (column: typeof alerts.statusValue | typeof alertSourceCounts.statusValue): SQL[] => {
    const values = filter.statusValue;
    if (values === undefined) return [];
    return [values.length === 1 ? eq(column, values[0]!) : inArray(column, values)];
  };
  const parts: SQL[] = [];
  if (counters !== null) {
    const c = alertSourceCounts;
    const where = [eq(c.organizationId, organizationId), lte(c.tlp, filter.maxTlp), ...statuses(c.statusValue)];
    if (counters.from !== undefined) where.push(gte(c.bucket, counters.from));
    if (counters.to !== undefined) where.push(lt(c.bucket, counters.to));
    parts.push(sql`select ${c.source} as source, sum(${c.count}) as count from ${c} where ${and(...where)} group by ${c.source}`);
  }
  for (const edge of edges) {
    const where = [eq(alerts.organizationId, organizationId), live, lte(alerts.tlp, filter.maxTlp), ...statuses(alerts.statusValue)];
    if (edge.from !== undefined) where.push(gte(alerts.createdAt, edge.from));
    if (edge.to !== undefined) where.push(lt(alerts.createdAt, edge.to));
    parts.push(sql`select ${alerts.source} as source, count(*) as count from ${alerts} where ${and(...where)} group by ${alerts.source}`);
  }
  if (parts.length === 1) return sql`${parts[0]!} order by source`;
  return sql`select source, sum(count) as count from (${sql.join(parts, sql` union all `)}) as parts group by source order by source`;
}

/** The PostgreSQL AlertRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createAlertRepository(db: NodePgDatabase, unit: UnitState): AlertRepository {
  const { reading, writing } = unitGuards(unit);
  const first = async (where: SQL | undefined): Promise<Alert | null> => {
    const rows = await guard(db.select(alertRow).from(alerts).where(where).limit(1));
    return rows[0] ? toAlert(rows[0]) : null;
  };
  const exists = async (where: SQL | undefined): Promise<boolean> =>
    (await guard(db.select({ one: sql`1` }).from(alerts).where(where).limit(1))).length > 0;
  /** Another live alert holding this record's (source, sourceRef) at its TLP. */
  const refHeldElsewhere = (record: Alert) =>
    and(eq(alerts.organizationId, record.organizationId), eq(alerts.source, record.source), eq(alerts.sourceRef, record.sourceRef ?? ""), eq(alerts.tlp, record.tlp), live, ne(alerts.id, record.id));

  return {
    async insert(record) {
      writing();
      // ON CONFLICT DO NOTHING (any unique key, the partial one included) leaves the transaction
      // usable, so the core can catch the conflict and fold into the winner of a race.
      const written = await guard(db.insert(alerts).values(rowValues(alerts, alertToRow(record))).onConflictDoNothing().returning({ id: alerts.id }));
      if (written.length > 0) return;
      if (await exists(eq(alerts.id, record.id))) throw uniqueViolation({ table: "alerts", constraint: "alerts_pkey" });
      throw uniqueViolation({ table: "alerts", constraint: "alerts_source_ref_unique" });
    },
    async findById(organizationId, id, options = {}) {
      reading();
      const where = [eq(alerts.organizationId, organizationId), eq(alerts.id, id)];
      return first(and(...where, ...(options.includeDeleted ? [] : [live])));
    },
    async findBySourceRef(organizationId, source, sourceRef, maxTlp) {
      reading();
      const rows = await guard(
        db
          .select(alertRow)
          .from(alerts)
          .where(and(eq(alerts.organizationId, organizationId), eq(alerts.source, source), eq(alerts.sourceRef, sourceRef), lte(alerts.tlp, maxTlp), live))
          .orderBy(desc(alerts.tlp))
          .limit(1),
      );
      return rows[0] ? toAlert(rows[0]) : null;
    },
    async update(record) {
      writing();
      const row = alertToRow(record);
      const changes = Object.fromEntries(alertMutableColumns.map((c) => [c, row[c]]));
      // A live record with a reference is written only while no other live alert holds it: a
      // failed UPDATE would abort the whole transaction, a guarded one leaves it usable.
      const guarded = record.deletedAt === null && record.sourceRef !== null;
      const clash = guarded ? [sql`not exists (select 1 from ${alerts} as other where other.organization_id = ${record.organizationId} and other.source = ${record.source} and other.source_ref = ${record.sourceRef} and other.tlp = ${record.tlp} and other.deleted_at is null and other.id <> ${record.id})`] : [];
      const written = await guard(
        db
          .update(alerts)
          .set(rowValues(alerts, changes))
          .where(and(eq(alerts.organizationId, record.organizationId), eq(alerts.id, record.id), ...clash))
          .returning({ id: alerts.id }),
      );
      if (written.length > 0) return true;
      if (guarded && (await exists(refHeldElsewhere(record)))) throw uniqueViolation({ table: "alerts", constraint: "alerts_source_ref_unique" });
      return false;
    },
    async findMany(organizationId, ids) {
      reading();
      if (ids.length === 0) return [];
      const rows = await guard(db.select(alertRow).from(alerts).where(and(eq(alerts.organizationId, organizationId), inArray(alerts.id, [...ids]), live)));
      return rows.map(toAlert);
    },
    async assignMany(organizationId, ids, assigneeId, updatedAt) {
      writing();
      if (ids.length === 0) return 0;
      const written = await guard(
        db
          .update(alerts)
          .set(rowValues(alerts, { assignee_id: assigneeId, updated_at: toIsoTimestamp(updatedAt) }))
          .where(and(eq(alerts.organizationId, organizationId), inArray(alerts.id, [...ids]), live))
          .returning({ id: alerts.id }),
      );
      return written.length;
    },
    async list(organizationId, filter, page) {
      reading();
      const limit = pageLimit(page);
      const normalized = normalizeAlertFilter(filter);
      if (limit === 0 || normalized === null) return [];
      const rows = await guard(alertListStatement(db, organizationId, normalized, limit, page.beforeId));
      return rows.map(toAlert);
    },
    async countBySource(organizationId, filter) {
      reading();
      const normalized = normalizeAlertSourceCountFilter(filter);
      if (normalized === null) return [];
      const result = await guard(db.execute<{ source: string; count: string }>(alertSourceCountStatement(organizationId, normalized)));
      return result.rows.map((r) => ({ source: r.source, count: Number(r.count) }));
    },
  };
}
