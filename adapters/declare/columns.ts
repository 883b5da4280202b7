/**
 * The column kinds a stored resource is declared with. Each kind names what the column holds, not
 * how a database stores it: the dialects' table builders (adapters/<dialect>/declared-table.ts)
 * and the row mapping (rows.ts) each translate every kind once.
 */

export type ColumnKind = "id" | "text" | "int" | "float" | "bool" | "timestamp" | "json" | "enum";

/** A foreign key to another table's column. */
export interface Reference {
  table: string;
  column: string;
  /** The constraint's name; `<table>_<column>_fk` by default. */
  name?: string;
}

/** How one column is declared. `T` is the record's value type, `N` whether it may be null. */
export interface Column<T = unknown, N extends boolean = boolean> {
  readonly kind: ColumnKind;
  readonly nullable: N;
  /** The value a row gets when an insert leaves the column out (the record never does). */
  readonly default?: T;
  readonly references?: Reference;
  /** The SQL name, when it is not the snake_case of the record field. */
  readonly name?: string;
  /** Stored as a 64-bit integer (`int` only); read back as a JavaScript number. */
  readonly big?: boolean;
  /** The allowed values (`enum` only), for the record's type; the database stores text. */
  readonly values?: readonly string[];
  /**
   * A primary key (`id` only) compared in the database's own collation rather than byte by byte:
   * for keys never paged through (a session, an organization, an email).
   */
  readonly unsorted?: boolean;
  /**
   * Text compared byte by byte (`text` only), as sorted ids are: a column holding ids of another
   * table that queries join or match against that table's id (PostgreSQL: the "C" collation, so
   * an index on it serves `id = column`; an index in the database's collation does not).
   */
  readonly bytewise?: boolean;
  /** The table's alone, not the record's (see `internal`). */
  readonly internal?: boolean;
  /** Type carrier only: never set. */
  readonly _value?: T;
}

interface Options<T> {
  default?: T;
  references?: Reference;
  name?: string;
}

/** A column kind's builder: `nullable: true` makes the record's value `T | null`. */
export interface ColumnBuilder<T, Extra = object> {
  (options: Options<T> & Extra & { nullable: true }): Column<T, true>;
  (options?: Options<T> & Extra & { nullable?: false }): Column<T, false>;
}

const column =
  <T, Extra = object>(kind: ColumnKind, fixed: Partial<Column> = {}): ColumnBuilder<T, Extra> =>
  (options: Options<T> & Extra & { nullable?: boolean } = {} as Options<T> & Extra) =>
    ({ ...fixed, ...options, kind, nullable: options.nullable ?? false }) as Column<T, true> & Column<T, false>;

/**
 * The primary key: a prefixed sortable id (core/ids), compared byte by byte on both dialects;
 * `unsorted` for a key nothing is ordered by, `name` when its SQL name is not `id`'s.
 */
export const id = (options: { unsorted?: boolean; name?: string } = {}): Column<string, false> => ({ kind: "id", nullable: false, ...options });
export const text = column<string, { bytewise?: boolean }>("text");
export const timestamp = column<string>("timestamp");
export const bool = column<boolean>("bool");
export const int = column<number, { big?: boolean }>("int");
/** A double-precision number. */
export const float = column<number>("float");
/** A JSON value of type `T` (`json<string[]>()`); `nullableJson` when it may be null. */
export const json = <T>(options?: Options<T>): Column<T, false> => column<T>("json")(options);
export const nullableJson = <T>(options?: Options<T>): Column<T, true> => column<T>("json")({ ...options, nullable: true });

/** Text holding one of `values`. */
export function enumOf<const V extends readonly string[]>(values: V, options: Options<V[number]> & { nullable: true }): Column<V[number], true>;
export function enumOf<const V extends readonly string[]>(values: V, options?: Options<V[number]> & { nullable?: false }): Column<V[number], false>;
export function enumOf(values: readonly string[], options: Options<string> & { nullable?: boolean } = {}): Column<string> {
  return column<string>("enum", { values })(options as Options<string>);
}

/**
 * A column the table holds for the adapter's own queries (a dispatch mark, a counter) and the
 * record does not: inserts leave it to its default (or null), reads never select it, updates
 * never write it; only bespoke SQL (resources/*.ts) reads or sets it.
 */
export const internal = <C extends Column>(column: C): C & { readonly internal: true } => ({ ...column, internal: true });

/**
 * The history columns of a record that is soft-deleted (alerts, tasks, observables): when it was
 * created and last changed, by whom, and when and by whom it was deleted. Spread into a
 * declaration's columns with `softDelete: "deletedAt"` and `createdAt`, `createdBy` fixed.
 */
export const softDeletedHistory = () => ({
  createdAt: timestamp(),
  updatedAt: timestamp(),
  createdBy: text({ nullable: true }),
  deletedAt: timestamp({ nullable: true }),
  deletedBy: text({ nullable: true }),
});

/** The value a column holds in a record. */
export type ValueOf<C> = C extends Column<infer T, infer N> ? (N extends true ? T | null : T) : never;
