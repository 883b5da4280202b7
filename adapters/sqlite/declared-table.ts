/**
 * A declared resource's SQLite table (adapters/declare/resource.ts), for schema.ts and so for
 * drizzle-kit's migrations: each column kind has one SQLite type here. Timestamps are ISO text,
 * JSON is text, booleans are 0 / 1 integers.
 */
import type { SQL } from "drizzle-orm";
import { getTableColumns, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteColumnBuilderBase, SQLiteTable } from "drizzle-orm/sqlite-core";
import { foreignKey, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Field, Resource } from "../declare/resource.js";

function columnOf({ name, column }: Field): SQLiteColumnBuilderBase {
  const builders = {
    id: () => text(name).primaryKey(),
    text: () => text(name),
    enum: () => text(name),
    timestamp: () => text(name),
    int: () => integer(name),
    bool: () => integer(name, { mode: "boolean" }),
    json: () => text(name, { mode: "json" }),
  };
  let built = builders[column.kind]() as ReturnType<typeof text>;
  if (!column.nullable && column.kind !== "id") built = built.notNull() as typeof built;
  if (column.default !== undefined) {
    const value: unknown = column.kind === "json" ? sql.raw(`'${JSON.stringify(column.default).replace(/'/g, "''")}'`) : column.default;
    built = built.default(value as string | SQL) as typeof built;
  }
  return built;
}

/** The referenced column, found by SQL name in one of `tables`. */
function target(tables: Readonly<Record<string, SQLiteTable>>, table: string, column: string): SQLiteColumn {
  const found = tables[table] && Object.values(getTableColumns(tables[table])).find((c) => c.name === column);
  if (!found) throw new Error(`casekit: the declared reference ${table}.${column} is not among the tables given`);
  return found;
}

/** `references`: the tables the resource's foreign keys point at, by table name. */
export function sqliteTableOf(resource: Resource, references: Readonly<Record<string, SQLiteTable>> = {}) {
  const columns = Object.fromEntries(resource.fields.map((field) => [field.key, columnOf(field)]));
  const { unique = [], indexes = [] } = resource.spec;
  return sqliteTable(resource.table, columns, (t) => {
    const on = (keys: readonly string[]) => keys.map((key) => t[key]!) as unknown as [SQLiteColumn, ...SQLiteColumn[]];
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
