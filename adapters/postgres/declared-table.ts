/**
 * A declared resource's PostgreSQL table (adapters/declare/resource.ts), for schema.ts and so for
 * drizzle-kit's migrations: each column kind has one PostgreSQL type here.
 */
import type { SQL } from "drizzle-orm";
import { getTableColumns, sql } from "drizzle-orm";
import type { ExtraConfigColumn, PgColumn, PgColumnBuilderBase, PgTable } from "drizzle-orm/pg-core";
import { bigint, boolean, doublePrecision, foreignKey, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { ColumnKeys, Field, Resource } from "../declare/resource.js";
import { columnConstraintsOf, foreignKeysOf, indexesOf, jsonLiteral, referencedColumn } from "../declare/table-parts.js";
import { isoTimestamp, jsonb, sortableId } from "./column-types.js";

function columnOf({ name, column }: Field, constraint: string | undefined): PgColumnBuilderBase {
  const builders = {
    id: () => (column.unsorted ? text(name) : sortableId(name)).primaryKey(),
    text: () => (column.bytewise ? sortableId(name) : text(name)),
    enum: () => text(name),
    timestamp: () => isoTimestamp(name),
    int: () => (column.big ? bigint(name, { mode: "number" }) : integer(name)),
    float: () => doublePrecision(name),
    bool: () => boolean(name),
    json: () => jsonb(name),
  };
  let built = builders[column.kind]() as ReturnType<typeof text>;
  if (!column.nullable && column.kind !== "id") built = built.notNull() as typeof built;
  if (constraint !== undefined) built = built.unique(constraint) as typeof built;
  if (column.default !== undefined) {
    const value = column.kind === "json" ? sql.raw(`${jsonLiteral(column.default)}::jsonb`) : column.default;
    built = built.default(value as string | SQL) as typeof built;
  }
  return built;
}

/** `references`: the tables the resource's foreign keys point at, by table name. */
export function pgTableOf<R extends Resource>(resource: R, references: Readonly<Record<string, PgTable>> = {}) {
  const constraints = columnConstraintsOf(resource);
  // Keyed by the declaration's keys, so a table's columns are known to exist where others reference them.
  const columns = Object.fromEntries(resource.tableFields.map((field) => [field.key, columnOf(field, constraints.get(field.key))])) as Record<ColumnKeys<R>, PgColumnBuilderBase>;
  return pgTable(resource.table, columns, (t) => {
    const on = (keys: readonly string[]) => keys.map((key) => t[key as ColumnKeys<R>]) as unknown as [PgColumn, ...PgColumn[]];
    return [
      ...foreignKeysOf(resource).map((fk) =>
        foreignKey({ name: fk.name, columns: on([fk.key]), foreignColumns: [referencedColumn(references, fk, (table) => getTableColumns(table))] }),
      ),
      ...indexesOf(resource).map((ix) => {
        if (ix.gin) {
          const [first, ...rest] = ix.keys.map((key) => (t[key as ColumnKeys<R>] as unknown as ExtraConfigColumn).op("jsonb_path_ops"));
          return index(ix.name).using("gin", first!, ...rest);
        }
        const built = (ix.unique ? uniqueIndex(ix.name) : index(ix.name)).on(...on(ix.keys));
        return ix.where === undefined ? built : built.where(sql.raw(ix.where));
      }),
    ];
  });
}
