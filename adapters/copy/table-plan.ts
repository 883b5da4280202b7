/**
 * Which tables a SQLite → PostgreSQL copy carries, in which order, and how each column converts.
 * Everything is read from the two drizzle schemas, so a table or column added to both is copied
 * without touching this file, and one added to a single schema (or declared differently) stops
 * the copy before it starts instead of losing data.
 */
import type { DrizzleEntityClass, Table } from "drizzle-orm";
import { getTableColumns, getTableName, is } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { getTableConfig as getPostgresTableConfig, PgTable } from "drizzle-orm/pg-core";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { getTableConfig as getSqliteTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as postgresSchema from "../postgres/schema.js";
import * as sqliteSchema from "../sqlite/schema.js";

/** Tables only PostgreSQL has, and why nothing is carried into them. */
export const postgresOnlyTables: Readonly<Record<string, string>> = {
  rate_limits: "the shared rate limiter's counters: short-lived, refilled by use",
};

/**
 * Tables both databases derive from others with triggers: PostgreSQL rebuilds them while the rows
 * they summarise arrive, so they are not copied, only checked (same row count) afterwards.
 */
export const derivedTables: Readonly<Record<string, string>> = {
  alert_source_counts: "live alerts counted per source, status, TLP and hour, kept by triggers on alerts",
};

/**
 * How a value goes from the SQLite column to the PostgreSQL one. The SQLite column's drizzle
 * mapper has already decoded it (JSON text parsed, 0/1 made boolean); `json` is then written back
 * as JSON text, which the PostgreSQL `jsonb` column takes as is (adapters/postgres/schema.ts).
 */
export type Conversion = "same" | "json" | "boolean" | "timestamp";

export interface CopiedColumn {
  /** The property name, shared by both schemas (the row mappers rely on it). */
  key: string;
  name: string;
  conversion: Conversion;
}

export interface CopiedTable {
  name: string;
  source: SQLiteTable;
  target: PgTable;
  /** The primary key's property: rows are read in keyset batches ordered by it. */
  key: string;
  columns: CopiedColumn[];
}

/** Thrown when the two schemas disagree: the copy would lose or garble data. */
export class CopyPlanError extends Error {
  override name = "CopyPlanError";
}

const tablesOf = <T extends Table>(module: Record<string, unknown>, kind: DrizzleEntityClass<T>): Map<string, T> => {
  const tables = new Map<string, T>();
  for (const value of Object.values(module)) {
    if (is(value, kind)) tables.set(getTableName(value), value);
  }
  return tables;
};

export interface CopyPlan {
  /** The tables to copy, parents before children (every foreign key's target comes first). */
  copied: CopiedTable[];
  /** The tables PostgreSQL derives itself (derivedTables), to compare once the copy is done. */
  derived: { name: string; source: SQLiteTable; target: PgTable }[];
}

export function copyPlan(): CopyPlan {
  const sources = tablesOf(sqliteSchema, SQLiteTable);
  const targets = tablesOf(postgresSchema, PgTable);
  for (const name of targets.keys()) {
    if (!sources.has(name) && !(name in postgresOnlyTables)) throw new CopyPlanError(`table ${name} exists only in the PostgreSQL schema`);
  }
  const copied: CopiedTable[] = [];
  const derived: CopyPlan["derived"] = [];
  for (const [name, source] of sources) {
    const target = targets.get(name);
    if (!target) throw new CopyPlanError(`table ${name} exists only in the SQLite schema`);
    if (name in derivedTables) derived.push({ name, source, target });
    else copied.push(planTable(name, source, target));
  }
  return { copied: inDependencyOrder(copied), derived };
}

function planTable(name: string, source: SQLiteTable, target: PgTable): CopiedTable {
  const sourceConfig = getSqliteTableConfig(source);
  const targetColumns = new Map(Object.entries(getTableColumns(target) as Record<string, PgColumn>));
  // A generated column (a stored record's text) is the source database's own: computed, not copied.
  const sourceColumns = Object.entries(getTableColumns(source) as Record<string, SQLiteColumn>).filter(([, column]) => column.generated === undefined);
  if (sourceColumns.length !== targetColumns.size) {
    const extra = [...targetColumns.keys()].filter((key) => !sourceColumns.some(([k]) => k === key));
    throw new CopyPlanError(`${name}: columns ${extra.join(", ")} exist only in the PostgreSQL schema`);
  }
  const columns = sourceColumns.map(([key, column]) => {
    const counterpart = targetColumns.get(key);
    if (!counterpart || counterpart.name !== column.name) throw new CopyPlanError(`${name}.${column.name} has no counterpart in the PostgreSQL schema`);
    return { key, name: column.name, conversion: conversionOf(name, column, counterpart) };
  });
  const primary = sourceColumns.filter(([, column]) => column.primary);
  if (primary.length !== 1 || sourceConfig.primaryKeys.length > 0) throw new CopyPlanError(`${name}: a copy needs a single-column primary key`);
  return { name, source, target, key: primary[0]![0], columns };
}

/** The one conversion that makes the SQLite column's values fit the PostgreSQL column's type. */
function conversionOf(table: string, source: SQLiteColumn, target: PgColumn): Conversion {
  const from = source.dataType === "json" ? "json" : source.dataType === "boolean" ? "boolean" : source.getSQLType();
  const to = target.getSQLType();
  const fits: Record<string, [string[], Conversion][]> = {
    text: [[["text", 'text COLLATE "C"'], "same"], [["timestamp(3) with time zone"], "timestamp"]],
    integer: [[["integer", "bigint"], "same"]],
    real: [[["double precision", "real"], "same"]],
    json: [[["jsonb"], "json"]],
    boolean: [[["boolean"], "boolean"]],
  };
  const match = fits[from]?.find(([types]) => types.includes(to));
  if (!match) throw new CopyPlanError(`${table}.${source.name}: no conversion from SQLite ${from} to PostgreSQL ${to}`);
  return match[1];
}

function inDependencyOrder(tables: CopiedTable[]): CopiedTable[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const parents = new Map(
    tables.map((table) => {
      const references = [
        ...getSqliteTableConfig(table.source).foreignKeys.map((fk) => getTableName(fk.reference().foreignTable)),
        ...getPostgresTableConfig(table.target).foreignKeys.map((fk) => getTableName(fk.reference().foreignTable)),
      ];
      // A table referring to itself could not be copied in key order without deferred constraints.
      if (references.includes(table.name)) throw new CopyPlanError(`${table.name} refers to itself: the copy cannot order its rows`);
      return [table.name, new Set(references)];
    }),
  );
  const ordered: CopiedTable[] = [];
  const placed = new Set<string>();
  // Alphabetical among the tables that are ready, so the order is the same on every run.
  const pending = [...byName.keys()].sort();
  while (pending.length > 0) {
    const next = pending.findIndex((name) => [...parents.get(name)!].every((parent) => placed.has(parent)));
    if (next < 0) throw new CopyPlanError(`the foreign keys of ${pending.join(", ")} form a cycle or name a table not copied`);
    const [name] = pending.splice(next, 1);
    placed.add(name!);
    ordered.push(byName.get(name!)!);
  }
  return ordered;
}
