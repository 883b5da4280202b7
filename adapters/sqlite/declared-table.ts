/**
 * A declared resource's SQLite table (adapters/declare/resource.ts), for schema.ts and so for
 * drizzle-kit's migrations: each column kind has one SQLite type here. Timestamps are ISO text,
 * JSON is text, booleans are 0 / 1 integers.
 */
import type { SQL } from "drizzle-orm";
import { getTableColumns, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteColumnBuilderBase, SQLiteTable } from "drizzle-orm/sqlite-core";
import { foreignKey, index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { ColumnKeys, Field, Resource } from "../declare/resource.js";
import { columnConstraintsOf, foreignKeysOf, indexesOf, jsonLiteral, referencedColumn } from "../declare/table-parts.js";
import { recordObject, storedRecordColumn } from "./dialect.js";

function columnOf({ name, column }: Field, constraint: string | undefined): SQLiteColumnBuilderBase {
  const builders = {
    id: () => text(name).primaryKey(),
    text: () => text(name),
    enum: () => text(name),
    timestamp: () => text(name),
    int: () => integer(name),
    float: () => real(name),
    bool: () => integer(name, { mode: "boolean" }),
    json: () => text(name, { mode: "json" }),
  };
  let built = builders[column.kind]() as ReturnType<typeof text>;
  if (!column.nullable && column.kind !== "id") built = built.notNull() as typeof built;
  if (constraint !== undefined) built = built.unique(constraint) as typeof built;
  if (column.default !== undefined) {
    const value = column.kind === "json" ? sql.raw(jsonLiteral(column.default)) : column.default;
    built = built.default(value as string | SQL) as typeof built;
  }
  return built;
}

/** The drizzle property of a `storedRecord` resource's generated column (adapters/sqlite/dialect.ts). */
export const storedRecordKey = "_storedRecord";

/** `references`: the tables the resource's foreign keys point at, by table name. */
export function sqliteTableOf<R extends Resource>(resource: R, references: Readonly<Record<string, SQLiteTable>> = {}) {
  const constraints = columnConstraintsOf(resource);
  // Keyed by the declaration's keys, so a table's columns are known to exist where others reference them.
  const columns = Object.fromEntries(resource.tableFields.map((field) => [field.key, columnOf(field, constraints.get(field.key))])) as Record<ColumnKeys<R>, SQLiteColumnBuilderBase>;
  if (resource.spec.storedRecord) {
    if (resource.byKey.has(storedRecordKey)) throw new Error(`casekit: ${resource.table} declares ${storedRecordKey}, the stored record's own key`);
    Object.assign(columns, { [storedRecordKey]: text(storedRecordColumn).notNull().generatedAlwaysAs(sql.raw(recordObject(resource.fields)), { mode: "stored" }) });
  }
  return sqliteTable(resource.table, columns, (t) => {
    const on = (keys: readonly string[]) => keys.map((key) => t[key as ColumnKeys<R>]) as unknown as [SQLiteColumn, ...SQLiteColumn[]];
    return [
      ...foreignKeysOf(resource).map((fk) =>
        foreignKey({ name: fk.name, columns: on([fk.key]), foreignColumns: [referencedColumn(references, fk, (table) => getTableColumns(table))] }),
      ),
      // GIN indexes are PostgreSQL's alone.
      ...indexesOf(resource).filter((ix) => !ix.gin).map((ix) => {
        const built = (ix.unique ? uniqueIndex(ix.name) : index(ix.name)).on(...on([...ix.keys, ...ix.sqliteAlso]));
        return ix.where === undefined ? built : built.where(sql.raw(ix.where));
      }),
    ];
  });
}
