/**
 * A declared resource's PostgreSQL table (adapters/declare/resource.ts), for schema.ts and so for
 * drizzle-kit's migrations: each column kind has one PostgreSQL type here.
 */
import type { SQL } from "drizzle-orm";
import { getTableColumns, sql } from "drizzle-orm";
import type { PgColumn, PgColumnBuilderBase, PgTable } from "drizzle-orm/pg-core";
import { bigint, boolean, foreignKey, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { Field, Resource } from "../declare/resource.js";
import { isoTimestamp, jsonb, sortableId } from "./column-types.js";

function columnOf({ name, column }: Field): PgColumnBuilderBase {
  const builders = {
    id: () => sortableId(name).primaryKey(),
    text: () => text(name),
    enum: () => text(name),
    timestamp: () => isoTimestamp(name),
    int: () => (column.big ? bigint(name, { mode: "number" }) : integer(name)),
    bool: () => boolean(name),
    json: () => jsonb(name),
  };
  let built = builders[column.kind]() as ReturnType<typeof text>;
  if (!column.nullable && column.kind !== "id") built = built.notNull() as typeof built;
  if (column.default !== undefined) {
    const value: unknown = column.kind === "json" ? sql.raw(`'${JSON.stringify(column.default).replace(/'/g, "''")}'::jsonb`) : column.default;
    built = built.default(value as string | SQL) as typeof built;
  }
  return built;
}

/** The referenced column, found by SQL name in one of `tables`. */
function target(tables: Readonly<Record<string, PgTable>>, table: string, column: string): PgColumn {
  const found = tables[table] && Object.values(getTableColumns(tables[table])).find((c) => c.name === column);
  if (!found) throw new Error(`casekit: the declared reference ${table}.${column} is not among the tables given`);
  return found;
}

/** `references`: the tables the resource's foreign keys point at, by table name. */
export function pgTableOf(resource: Resource, references: Readonly<Record<string, PgTable>> = {}) {
  const columns = Object.fromEntries(resource.fields.map((field) => [field.key, columnOf(field)]));
  const { unique = [], indexes = [] } = resource.spec;
  return pgTable(resource.table, columns, (t) => {
    const on = (keys: readonly string[]) => keys.map((key) => t[key]!) as unknown as [PgColumn, ...PgColumn[]];
    return [
      ...resource.fields.flatMap(({ key, name, column }) =>
        column.references
          ? [foreignKey({ name: column.references.name ?? `${resource.table}_${name}_fk`, columns: on([key]), foreignColumns: [target(references, column.references.table, column.references.column)] })]
          : [],
      ),
      ...unique.map((key) => uniqueIndex(key.name).on(...on(key.columns))),
      ...indexes.map((key) => index(key.name).on(...on(key.columns))),
    ];
  });
}
