import type { SQL } from "drizzle-orm";
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { CaseKitError } from "../../core/errors.js";
import type { Observable, ObservableFilter } from "../../core/observables/types.js";
import type { ObservableRepository } from "../../core/ports/storage.js";
import { pageLimit } from "../shared/case-filter.js";
import { normalizeObservableFilter } from "../shared/observable-filter.js";
import type { ObservableRow } from "../shared/observable-rows.js";
import { observableFromRow, observableMutableColumns, observableToRow } from "../shared/observable-rows.js";
import { guard } from "./errors.js";
import type { UnitState } from "./repositories.js";
import { rowSelection, rowValues } from "./rows.js";
import { alerts, cases, observables } from "./schema.js";
import { unitGuards } from "../shared/unit-state.js";

/** Compile-time proof that the table's columns are exactly the shared row's keys. */
type ColumnNames = { [K in keyof (typeof observables)["_"]["columns"]]: (typeof observables)["_"]["columns"][K]["_"]["name"] }[keyof (typeof observables)["_"]["columns"]];
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
export const _observableColumnsMatch: Same<ColumnNames, keyof ObservableRow> = true;

const observableRow = rowSelection(observables);
const live = isNull(observables.deletedAt);
/** A soft-deleted alert hides its observables from every read. */
const parentAlertLive = sql`not exists (select 1 from ${alerts} where ${alerts.id} = ${observables.alertId} and ${isNotNull(alerts.deletedAt)})`;

/** The shared row with PostgreSQL booleans (the shared mapper writes SQLite's 0/1). */
function toValues(record: Observable, row: Partial<ReturnType<typeof observableToRow>>) {
  return rowValues(observables, { ...row, ...("ioc" in row ? { ioc: record.ioc } : {}), ...("sighted" in row ? { sighted: record.sighted } : {}) });
}

function conditions(filter: ObservableFilter): SQL[] {
  const where: SQL[] = [
    live,
    lte(observables.tlp, filter.maxTlp),
    // The parent must be at or below the clearance too (and a parent alert live).
    sql`(${observables.caseId} is null or exists (select 1 from ${cases} where ${cases.id} = ${observables.caseId} and ${cases.organizationId} = ${observables.organizationId} and ${cases.tlp} <= ${filter.maxTlp}))`,
    sql`(${observables.alertId} is null or exists (select 1 from ${alerts} where ${alerts.id} = ${observables.alertId} and ${alerts.organizationId} = ${observables.organizationId} and ${alerts.deletedAt} is null and ${alerts.tlp} <= ${filter.maxTlp}))`,
  ];
  // One value is `=`, so (organization_id, data, id) answers "where else have we seen it" in one seek.
  if (filter.data) where.push(filter.data.length === 1 ? eq(observables.data, filter.data[0]!) : inArray(observables.data, filter.data));
  if (filter.dataType) where.push(inArray(observables.dataType, filter.dataType));
  if (filter.caseId) where.push(filter.caseId.length === 1 ? eq(observables.caseId, filter.caseId[0]!) : inArray(observables.caseId, filter.caseId));
  if (filter.alertId) where.push(filter.alertId.length === 1 ? eq(observables.alertId, filter.alertId[0]!) : inArray(observables.alertId, filter.alertId));
  if (filter.tlp) where.push(inArray(observables.tlp, filter.tlp));
  if (filter.ioc !== undefined) where.push(eq(observables.ioc, filter.ioc));
  if (filter.sighted !== undefined) where.push(eq(observables.sighted, filter.sighted));
  if (filter.tag) {
    const matches = filter.tag.map((name) => sql`${observables.tags} @> ${JSON.stringify([{ name }])}::jsonb`);
    where.push(or(...matches) ?? sql`false`);
  }
  if (filter.createdAfter !== undefined) where.push(gt(observables.createdAt, filter.createdAfter));
  if (filter.createdBefore !== undefined) where.push(lt(observables.createdAt, filter.createdBefore));
  return where;
}

/**
 * One list call's statement (semantics: ObservableRepository.list), filter already normalised.
 * With one `data` value and nothing narrower it is a single seek on (organization_id, data, id),
 * rows already in id order.
 */
export function observableListStatement(db: NodePgDatabase, organizationId: string, filter: ObservableFilter, limit: number, beforeId: string | undefined) {
  const keyset = beforeId === undefined ? [] : [lt(observables.id, beforeId)];
  return db
    .select(observableRow)
    .from(observables)
    .where(and(eq(observables.organizationId, organizationId), ...conditions(filter), ...keyset))
    .orderBy(desc(observables.id))
    .limit(limit);
}

/** The PostgreSQL ObservableRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createObservableRepository(db: NodePgDatabase, unit: UnitState): ObservableRepository {
  const { reading, writing } = unitGuards(unit);
  const first = async (where: SQL | undefined): Promise<Observable | null> => {
    const rows = await guard(db.select(observableRow).from(observables).where(where).limit(1));
    return rows[0] ? observableFromRow(rows[0] as unknown as ObservableRow) : null;
  };

  return {
    async insert(record) {
      writing();
      // ON CONFLICT DO NOTHING (any unique key, the partial ones included) leaves the transaction
      // usable, so the core can catch the conflict and merge into the winner of a race.
      const written = await guard(
        db.insert(observables).values(toValues(record, observableToRow(record))).onConflictDoNothing().returning({ id: observables.id }),
      );
      if (written.length > 0) return;
      const idTaken = await guard(db.select({ one: sql`1` }).from(observables).where(eq(observables.id, record.id)).limit(1));
      if (idTaken.length > 0) throw new CaseKitError("conflict", "An observable with this id already exists");
      throw new CaseKitError("conflict", `The ${record.caseId !== null ? "case" : "alert"} already has an observable ${record.dataType} with this value`);
    },
    async findById(organizationId, id) {
      reading();
      return first(and(eq(observables.organizationId, organizationId), eq(observables.id, id), live, parentAlertLive));
    },
    async findByValue(organizationId, parent, dataType, data, maxTlp) {
      reading();
      // The partial unique indexes (observables_case_unique / _alert_unique) serve this, highest TLP first.
      const parentColumn = parent.kind === "case" ? observables.caseId : observables.alertId;
      const rows = await guard(
        db
          .select(observableRow)
          .from(observables)
          .where(and(eq(parentColumn, parent.id), eq(observables.dataType, dataType), eq(observables.data, data), lte(observables.tlp, maxTlp), live, eq(observables.organizationId, organizationId)))
          .orderBy(desc(observables.tlp))
          .limit(1),
      );
      return rows[0] ? observableFromRow(rows[0] as unknown as ObservableRow) : null;
    },
    async update(record) {
      writing();
      const row = observableToRow(record);
      const changes = Object.fromEntries(observableMutableColumns.map((c) => [c, row[c]]));
      const written = await guard(
        db
          .update(observables)
          .set(toValues(record, changes))
          .where(and(eq(observables.organizationId, record.organizationId), eq(observables.id, record.id), live))
          .returning({ id: observables.id }),
      );
      return written.length > 0;
    },
    async listByAlert(organizationId, alertId) {
      reading();
      const rows = await guard(
        db
          .select(observableRow)
          .from(observables)
          .where(and(eq(observables.organizationId, organizationId), eq(observables.alertId, alertId), live))
          .orderBy(asc(observables.id)),
      );
      return rows.map((row) => observableFromRow(row as unknown as ObservableRow));
    },
    async list(organizationId, filter, page) {
      reading();
      const limit = pageLimit(page);
      const normalized = normalizeObservableFilter(filter);
      if (limit === 0 || normalized === null) return [];
      const rows = await guard(observableListStatement(db, organizationId, normalized, limit, page.beforeId));
      return rows.map((row) => observableFromRow(row as unknown as ObservableRow));
    },
  };
}
