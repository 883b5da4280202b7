/**
 * `defineResource`: one stored resource declared once. Both dialects' drizzle tables, the row
 * mapping, the SQL and the repository are derived from it; nothing about a resource is written
 * per dialect.
 */
import type { Column, ValueOf } from "./columns.js";

/**
 * A unique key, and the conflict a clash on it raises (worded for people: no SQL, no values; a
 * function words it from the clashing record). `where` makes it a partial unique index: SQL both
 * dialects share, naming columns by their SQL names.
 */
export interface UniqueSpec<K extends string> {
  name: string;
  columns: readonly K[];
  conflict: string | ((record: Readonly<Record<string, unknown>>) => string);
  where?: string;
  /**
   * A one-column key declared as that column's UNIQUE constraint (the older tables' form) rather
   * than as a unique index: the same rule, kept in the form the migrations already created.
   */
  constraint?: true;
}

/**
 * An index. `where` makes it partial (SQL both dialects share); `gin` makes it a GIN index of a
 * JSON column's containment (jsonb_path_ops), which only PostgreSQL has: SQLite goes without.
 */
export interface IndexSpec<K extends string> {
  name: string;
  columns: readonly K[];
  where?: string;
  gin?: true;
  /**
   * Columns SQLite's copy of the index holds after `columns`: SQLite counts an index as covering
   * only when it holds every column a query names, the `where`'s too, where PostgreSQL reads those
   * from the predicate.
   */
  sqliteAlso?: readonly K[];
}

/**
 * A list filter: `equals` one value, `anyOf` a list (one value is `=`, so an index on the column
 * yields rows in order), a `range` (`after` / `before`, both exclusive), one bound (`atLeast`
 * inclusive, `below` exclusive), `jsonTags` (a JSON array column holding any of the names, read
 * from `key` of each element when the elements are objects), `contains` (case-insensitive text),
 * or a `condition`: SQL both dialects share, each `?` in it bound to the value (encoded as
 * `column`'s kind), for the rare rule no other kind says; or `idAmong`: the record's id is one of
 * those the subquery `sql` (marks bound as a condition's) yields, in the form of the dialect's
 * `idAmong`, which keeps the list's own index order. With `each`, a condition's or idAmong's value
 * is a list with one value per `?`, bound in order (a rule over several values of one kind).
 * With `holdsFrom`, a condition bound to a number at least that large holds for every row the
 * declaration allows, and the statement leaves it out: a bound on markings at the highest level
 * compares nothing, and a list or a bulk then pays no lookup per row for it (a task's case).
 */
export type FilterSpec<K extends string> =
  | { kind: "equals" | "anyOf" | "range" | "atLeast" | "below" | "contains"; column: K }
  | { kind: "jsonTags"; column: K; key?: string }
  | { kind: "condition" | "idAmong"; column: K; sql: string; each?: true; holdsFrom?: number };

export interface ResourceSpec<C extends Record<string, Column>, F extends Record<string, FilterSpec<keyof C & string>>> {
  table: string;
  /** How conflicts name one record: "A comment". */
  noun: string;
  columns: C;
  /**
   * The column every statement is scoped by (default `organizationId`); `null` for the few tables
   * no tenant owns (organizations themselves, sign-in counters by email): their repository methods
   * take `null` where others take the tenant's id.
   */
  tenant?: (keyof C & string) | null;
  /** Set on soft delete; no read ever returns a row where it is set. */
  softDelete?: keyof C & string;
  /** Columns an update never writes (besides the id and the tenant, which it never writes either). */
  fixed?: readonly (keyof C & string)[];
  unique?: readonly UniqueSpec<keyof C & string>[];
  indexes?: readonly IndexSpec<keyof C & string>[];
  filters?: F;
  /**
   * The record's JSON text is stored beside its columns, and reads of whole records select it
   * instead of building it (where the dialect stores it: SQLite's `record_json`, a generated column
   * SQLite itself keeps in step with every write, adapters/sqlite/dialect.ts). For tables read far
   * more often than any of their rows is written: each row takes about twice the space and each
   * write a few µs more.
   */
  storedRecord?: true;
}

/** One column with its record field and its SQL name. */
export interface Field {
  key: string;
  name: string;
  column: Column;
}

export interface Resource<C extends Record<string, Column> = Record<string, Column>, F extends Record<string, FilterSpec<string>> = Record<string, FilterSpec<string>>> {
  /** The declaration as written (typed loosely: derivations read it column by column). */
  readonly spec: ResourceSpec<Record<string, Column>, Record<string, FilterSpec<string>>>;
  readonly table: string;
  /** The record's columns, in declaration order (the order of every select list and insert). */
  readonly fields: readonly Field[];
  /** Every column of the table, `internal` ones too, in declaration order. */
  readonly tableFields: readonly Field[];
  readonly byKey: ReadonlyMap<string, Field>;
  readonly id: Field;
  /** Undefined for a resource no tenant owns. */
  readonly tenant: Field | undefined;
  readonly softDelete: Field | undefined;
  /** The columns an update writes. */
  readonly mutable: readonly Field[];
  readonly filters: F;
  /** Type carrier only: never set. */
  readonly _columns?: C;
}

/** True when A and B are the same type: beside each declaration, the proof that it stores exactly the core's record. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The record type a resource stores (its `internal` columns are the table's alone). */
export type RecordOf<R> = R extends Resource<infer C> ? { -readonly [K in keyof C as C[K] extends { readonly internal: true } ? never : K]: ValueOf<C[K]> } : never;

/** The keys a resource's columns are declared under, internal ones included (its drizzle tables' properties). */
export type ColumnKeys<R> = R extends Resource<infer C> ? keyof C & string : never;

/** What a list may filter on: each declared filter's value, all optional. */
export type FilterValues<R> =
  R extends Resource<infer C, infer F>
    ? { [N in keyof F]?: FilterValue<F[N], ValueOf<C[F[N]["column"] & keyof C]>> }
    : never;

type FilterValue<S, V> = S extends { kind: "equals" }
  ? NonNullable<V>
  : S extends { kind: "anyOf" }
    ? readonly NonNullable<V>[]
    : S extends { kind: "range" }
      ? { after?: NonNullable<V>; before?: NonNullable<V> }
      : S extends { kind: "jsonTags" }
        ? readonly string[]
        : S extends { kind: "contains" }
          ? string
          : S extends { each: true }
            ? readonly NonNullable<V>[]
            : NonNullable<V>;

export const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

export function defineResource<const C extends Record<string, Column>, const F extends Record<string, FilterSpec<keyof C & string>> = Record<never, never>>(
  spec: ResourceSpec<C, F>,
): Resource<C, F> {
  const tableFields = Object.entries(spec.columns).map(([key, column]) => ({ key, name: column.name ?? snakeCase(key), column }));
  const fields = tableFields.filter((f) => f.column.internal !== true);
  const byKey = new Map(tableFields.map((field) => [field.key, field]));
  const field = (key: string, what: string): Field => {
    const found = byKey.get(key);
    if (!found) throw new Error(`casekit: ${spec.table} declares ${what} ${key}, which is not one of its columns`);
    return found;
  };
  // The record carries these: a write binds them from it.
  const recordField = (key: string, what: string): Field => {
    const found = field(key, what);
    if (found.column.internal) throw new Error(`casekit: ${spec.table} declares ${what} ${key}, which is internal: the record does not hold it`);
    return found;
  };
  const ids = tableFields.filter((f) => f.column.kind === "id");
  if (ids.length !== 1) throw new Error(`casekit: ${spec.table} must declare exactly one id column`);
  const id = recordField(ids[0]!.key, "the id");
  const tenant = spec.tenant === null ? undefined : recordField(spec.tenant ?? "organizationId", "the tenant");
  const fixed = new Set<string>([id.key, ...(tenant ? [tenant.key] : []), ...(spec.fixed ?? [])]);
  for (const key of fixed) field(key, "a fixed column");
  for (const key of (spec.unique ?? []).flatMap((k) => k.columns)) recordField(key, "an indexed column");
  for (const key of (spec.indexes ?? []).flatMap((k) => [...k.columns, ...(k.sqliteAlso ?? [])])) field(key, "an indexed column");
  for (const key of spec.unique ?? []) {
    if (key.constraint && (key.columns.length !== 1 || key.where !== undefined)) throw new Error(`casekit: ${spec.table} declares ${key.name} as a column constraint, which takes one column and no where`);
  }
  const filters = (spec.filters ?? {}) as F;
  for (const filter of Object.values(filters)) field(filter.column, "a filter on");
  return {
    spec: spec as unknown as Resource["spec"],
    table: spec.table,
    fields,
    tableFields,
    byKey,
    id,
    tenant,
    softDelete: spec.softDelete === undefined ? undefined : recordField(spec.softDelete, "the soft-delete column"),
    mutable: fields.filter((f) => !fixed.has(f.key)),
    filters,
  };
}
