/**
 * The parts of a declared table both dialects' drizzle builders derive alike (foreign keys with
 * their names, unique and plain indexes, JSON defaults as SQL literals), so each builder only
 * maps them onto its own drizzle functions.
 */
import type { Resource } from "./resource.js";

export interface ForeignKeyPart {
  name: string;
  /** The record field holding the reference. */
  key: string;
  table: string;
  column: string;
}

export interface IndexPart {
  name: string;
  keys: readonly string[];
  unique: boolean;
  /** A partial index's condition, SQL both dialects share. */
  where: string | undefined;
  /** A GIN index of JSON containment (PostgreSQL only). */
  gin: boolean;
  /** Keys SQLite's copy holds after `keys` (IndexSpec.sqliteAlso). */
  sqliteAlso: readonly string[];
}

export function foreignKeysOf(resource: Resource): ForeignKeyPart[] {
  return resource.tableFields.flatMap(({ key, name, column }) =>
    column.references ? [{ name: column.references.name ?? `${resource.table}_${name}_fk`, key, table: column.references.table, column: column.references.column }] : [],
  );
}

export function indexesOf(resource: Resource): IndexPart[] {
  const { unique = [], indexes = [] } = resource.spec;
  return [
    ...unique.filter((u) => !u.constraint).map((u) => ({ name: u.name, keys: u.columns, unique: true, where: u.where, gin: false, sqliteAlso: [] })),
    ...indexes.map((i) => ({ name: i.name, keys: i.columns, unique: false, where: i.where, gin: i.gin === true, sqliteAlso: i.sqliteAlso ?? [] })),
  ];
}

/** The UNIQUE constraint name each column carries (keys declared with `constraint`), by record field. */
export function columnConstraintsOf(resource: Resource): Map<string, string> {
  return new Map((resource.spec.unique ?? []).filter((u) => u.constraint).map((u) => [u.columns[0]!, u.name]));
}

/** A JSON default as the SQL string literal both dialects start from (`'[]'`). */
export const jsonLiteral = (value: unknown): string => `'${JSON.stringify(value).replace(/'/g, "''")}'`;

/** The column the foreign key points at, found by SQL name among `tables` (drizzle tables by name). */
export function referencedColumn<T, C extends { name: string }>(tables: Readonly<Record<string, T>>, part: ForeignKeyPart, columnsOf: (table: T) => Record<string, C>): C {
  const table = tables[part.table];
  const found = table && Object.values(columnsOf(table)).find((c) => c.name === part.column);
  if (!found) throw new Error(`casekit: the declared reference ${part.table}.${part.column} is not among the tables given`);
  return found;
}

/**
 * A dialect's drizzle tables for `resources` (export name → declaration), built in the given
 * order: each table's foreign keys resolve among the tables built before it.
 */
export function tablesOf<const R extends Record<string, Resource>, T>(
  resources: R,
  build: (resource: Resource, references: Readonly<Record<string, T>>) => T,
): { [K in keyof R]: T } {
  const byName: Record<string, T> = {};
  const tables: Record<string, T> = {};
  for (const [exportName, resource] of Object.entries(resources)) {
    tables[exportName] = byName[resource.table] = build(resource, byName);
  }
  return tables as { [K in keyof R]: T };
}
