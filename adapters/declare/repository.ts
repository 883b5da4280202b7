/**
 * The generic repository of a declared resource, created per unit of work from the unit's
 * executor: every statement is tenant-scoped, soft-deleted rows are invisible to every read and
 * untouchable by update, and a clash on a unique key raises the conflict the declaration words.
 */
import { CaseKitError } from "../../core/errors.js";
import type { UnitState } from "../shared/unit-state.js";
import { checkReading, checkWriting } from "../shared/unit-state.js";
import type { Dialect, Executor, ViolatedKey } from "./dialect.js";
import type { FilterValues, RecordOf, Resource, UniqueSpec } from "./resource.js";
import { encodeValue, paramsOf, recordsetRow } from "./rows.js";
import type { ListPage, ResourceSql } from "./sql.js";
import { deleteQuery, insertManyText, listQuery, patchText, resourceSql, rowsPerInsert, scopeParams } from "./sql.js";

/**
 * What every declared resource can do. `tenantId` is the owning tenant's id, or `null` for a
 * resource no tenant owns (resource.ts, `tenant: null`).
 */
export interface DeclaredRepository<T, F> {
  /** Throws conflict (worded by the declaration) when the id or another unique key is taken. */
  insert(record: T): Promise<void>;
  /**
   * Inserts many records in few statements (rows per statement: sql.ts `rowsPerInsert`), skipping
   * those that clash with a unique key; resolves to how many were written.
   */
  insertMany(records: readonly T[]): Promise<number>;
  /** Inserts the record, or overwrites the mutable columns of the one with its id if its tenant's (another tenant's is left alone). */
  upsert(record: T): Promise<void>;
  /** The tenant's live record, or null. */
  findById(tenantId: string | null, id: string): Promise<T | null>;
  /** The tenant's live records among `ids`, in id order. */
  findMany(tenantId: string | null, ids: readonly string[]): Promise<T[]>;
  /** Writes the mutable columns of the tenant's live record; false when there is none. */
  update(record: T): Promise<boolean>;
  /** `update` for each record, one prepared statement for them all; how many were written. */
  updateMany(records: readonly T[]): Promise<number>;
  /** Sets the same mutable fields on the tenant's live records among `ids` in one statement; how many were written. */
  patchMany(tenantId: string | null, ids: readonly string[], patch: Partial<T>): Promise<number>;
  /** Removes the tenant's record, live or soft-deleted; false when there is none. */
  delete(tenantId: string | null, id: string): Promise<boolean>;
  /** Removes the tenant's records matching `filters` (soft-deleted ones too); how many. */
  deleteWhere(tenantId: string | null, filters: F): Promise<number>;
  /** One keyset page of the tenant's live records (soft-deleted ones too with `page.withDeleted`) matching `filters`, in id order. */
  list(tenantId: string | null, filters: F, page: ListPage): Promise<T[]>;
}

/** A key's declared wording, for the record that clashed on it. */
const worded = (key: UniqueSpec<string>, record: object): CaseKitError =>
  new CaseKitError("conflict", typeof key.conflict === "string" ? key.conflict : key.conflict(record as Record<string, unknown>));

/** The conflict a violated key raises: the declared wording of that key, else the id's or a generic one. */
function conflictOf(resource: Resource, key: ViolatedKey, record: object): CaseKitError {
  const named = (resource.spec.unique ?? []).find(
    (u) => u.name === key.constraint || (key.columns !== undefined && key.columns.join(",") === u.columns.map((c) => resource.byKey.get(c)!.name).join(",")),
  );
  if (named) return worded(named, record);
  const isId = key.constraint === `${resource.table}_pkey` || (key.columns?.length === 1 && key.columns[0] === resource.id.name);
  return new CaseKitError("conflict", `${resource.spec.noun} with ${isId ? "this id" : "these values"} already exists`);
}

/** A statement's failure: the declared conflict when it clashed on a unique key, else as it came. */
function translated(resource: Resource, dialect: Dialect, error: unknown, record: object): unknown {
  const key = dialect.uniqueViolation(error);
  return key ? conflictOf(resource, key, record) : error;
}

/** Writes the mutable columns of the tenant's live record; how many rows changed (0 or 1). */
async function updated(resource: Resource, dialect: Dialect, executor: Executor, sql: ResourceSql, record: object): Promise<number> {
  const params = paramsOf(sql.updateFields, record);
  try {
    return await (sql.updateMayClash ? executor.guarded(sql.update, params) : executor.run(sql.update, params));
  } catch (error) {
    throw translated(resource, dialect, error, record);
  }
}

/**
 * One per resource and unit of work, so it holds no closures of its own beyond its methods (a
 * unit builds every resource's repository). Whole-record reads select the dialect's
 * selectRecord: the database hands back the records.
 */
export function createRepository<R extends Resource>(resource: R, dialect: Dialect, executor: Executor, unit: UnitState): DeclaredRepository<RecordOf<R>, FilterValues<R>> {
  type T = RecordOf<R>;
  const sql = resourceSql(resource, dialect);

  return {
    async insert(record) {
      checkWriting(unit);
      let written: number;
      try {
        written = await executor.run(sql.insert, paramsOf(resource.fields, record));
      } catch (error) {
        throw translated(resource, dialect, error, record);
      }
      if (written > 0) return;
      // Nothing written: some unique key is taken. Probing costs only on this path, and
      // DO NOTHING left the unit usable on both dialects, as a refused statement would on SQLite.
      for (const [i, key] of (resource.spec.unique ?? []).entries()) {
        const taken = await executor.all(sql.uniqueProbes[i]!, paramsOf(sql.uniqueFields[i]!, record));
        if (taken.length > 0) throw worded(key, record);
      }
      throw conflictOf(resource, { columns: [resource.id.name] }, record);
    },

    async insertMany(records) {
      checkWriting(unit);
      const perStatement = rowsPerInsert(resource, dialect);
      let written = 0;
      for (let start = 0; start < records.length; start += perStatement) {
        const batch = records.slice(start, start + perStatement);
        const params = batch.flatMap((record) => paramsOf(resource.fields, record));
        written += await executor.run(insertManyText(resource, dialect, batch.length), params);
      }
      return written;
    },

    async upsert(record) {
      checkWriting(unit);
      try {
        await executor.run(sql.upsert, paramsOf(resource.fields, record));
      } catch (error) {
        throw translated(resource, dialect, error, record);
      }
    },

    async findById(tenantId, id) {
      checkReading(unit);
      const [found] = await executor.records<T>(sql.byId, scopeParams(resource, tenantId, id));
      return found ?? null;
    },

    async findMany(tenantId, ids) {
      checkReading(unit);
      if (ids.length === 0) return [];
      const query = listQuery(resource, dialect, tenantId, {}, { limit: ids.length, order: "asc" }, ids);
      return query ? executor.records<T>(query.text, query.params) : [];
    },

    async update(record) {
      checkWriting(unit);
      return (await updated(resource, dialect, executor, sql, record)) > 0;
    },

    async updateMany(records) {
      checkWriting(unit);
      if (records.length === 0) return 0;
      // One statement for the page where the dialect binds a recordset; a clash on a unique key
      // then needs the per-row path, which words it.
      if (sql.updateMany !== undefined && !sql.updateMayClash) {
        const rows = records.map((record) => recordsetRow(sql.updateManyFields, record));
        return executor.run(sql.updateMany, [JSON.stringify(rows)]);
      }
      let written = 0;
      for (const record of records) written += await updated(resource, dialect, executor, sql, record);
      return written;
    },

    async patchMany(tenantId, ids, patch) {
      checkWriting(unit);
      if (ids.length === 0) return 0;
      const keys = Object.keys(patch).filter((key) => (patch as Record<string, unknown>)[key] !== undefined);
      if (keys.length === 0) throw new Error(`casekit: a patch of ${resource.table} names no field`);
      const values = keys.map((key) => encodeValue(resource.byKey.get(key)!.column, (patch as Record<string, unknown>)[key]));
      const tenant = resource.tenant === undefined ? [] : [scopeParams(resource, tenantId, "")[0]];
      return executor.run(patchText(resource, dialect, keys), [...values, ...tenant, dialect.list(ids)]);
    },

    async delete(tenantId, id) {
      checkWriting(unit);
      return (await executor.run(sql.delete, scopeParams(resource, tenantId, id))) > 0;
    },

    async deleteWhere(tenantId, filters) {
      checkWriting(unit);
      const query = deleteQuery(resource, dialect, tenantId, filters as Record<string, unknown>);
      return query ? executor.run(query.text, query.params) : 0;
    },

    async list(tenantId, filters, page) {
      checkReading(unit);
      if (!(page.limit > 0)) return [];
      const query = listQuery(resource, dialect, tenantId, filters as Record<string, unknown>, page);
      return query ? executor.records<T>(query.text, query.params) : [];
    },
  };
}
