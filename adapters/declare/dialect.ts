/**
 * What a database dialect tells the generic SQL (sql.ts) and repository (repository.ts): how it
 * writes what SQL spells differently, how it recognises a unique violation, and how a unit of
 * work runs statements. A dialect knows SQL, never a resource.
 */
import type { Field, Resource } from "./resource.js";

/** A unique key a failed statement clashed on, as much of it as the driver reports. */
export interface ViolatedKey {
  /** The constraint's or index's name (PostgreSQL). */
  constraint?: string | undefined;
  /** The key's columns (SQLite). */
  columns?: readonly string[] | undefined;
}

export interface Dialect {
  /** The placeholder of the `n`th parameter (from 1): `?` or `$n`. */
  param(n: number): string;
  /** The most parameters one statement may bind (multi-row inserts stay below it). */
  maxParams: number;
  /**
   * What a SELECT that claims rows for the unit ends with, so claimers on other connections pass
   * over the rows this one took instead of waiting for them (` FOR UPDATE SKIP LOCKED`), or "".
   */
  skipLocked: string;
  /**
   * What a SELECT ends with to hold the rows it read until the unit ends, so a second writer of
   * them waits (` FOR NO KEY UPDATE`: rows the unit inserts that reference them hold KEY SHARE
   * locks, which FOR UPDATE would wait on, deadlocking two such units), or "" where the unit
   * already holds the whole database.
   */
  holdRow: string;
  /** `column` is one of the list bound at `param` (bound as `list(values)`). */
  anyOf(column: string, param: string): string;
  /**
   * `column` (a table's sorted id) is one of the ids `subquery` yields, in a form where the
   * list's walk of its own index newest first stays in that order (no sort of the matches).
   */
  idAmong(column: string, subquery: string): string;
  /** A list bound as one parameter. */
  list(values: readonly unknown[]): unknown;
  /** The JSON array `column` holds any of the names bound at `param` (as `jsonNames`); `key` reads objects' members. */
  jsonHasAny(column: string, param: string, key: string | undefined): string;
  /** How a `jsonHasAny` binds its names, when not as `list(names)` (a form an index of the column serves). */
  jsonNames?(names: readonly string[], key: string | undefined): unknown;
  /** `column` contains the text bound at `param`, ignoring case (bound as a LIKE pattern, `\` escaping). */
  containsText(column: string, param: string): string;
  /**
   * Rows bound as one parameter at `param` (a JSON array of objects keyed by column name, values
   * as `recordsetValue` gives them) read as a table `r` with `columns`, so one statement writes a
   * whole page. Undefined where one prepared statement per row costs no more (SQLite, in process).
   */
  recordset?(param: string, columns: readonly Field[]): string;
  /**
   * The order in which a stored JSON object's keys come back, where the database reorders them
   * (PostgreSQL's jsonb); absent where they come back as written.
   */
  jsonKeyOrder?(keys: string[]): string[];
  /**
   * What follows a table's name in FROM so that the query reads it through `index` (SQLite's
   * INDEXED BY), for the rare query whose index the planner would not pick; absent where the
   * planner always decides.
   */
  indexedBy?(index: string): string;
  /**
   * The select list of a read of whole records (by id, a list page), run by `Executor.records`: each
   * row comes back as the record itself, keyed by field and every value decoded by the database,
   * so no JavaScript maps a page of wide rows column by column. Its column names are
   * unqualified: the read selects from the resource's table alone.
   */
  selectRecord(resource: Resource): string;
  /** The key a unique violation clashed on, or undefined when `error` is anything else. */
  uniqueViolation(error: unknown): ViolatedKey | undefined;
}

/** How a unit of work runs statements; one executor per unit, on the unit's connection. */
export interface Executor {
  all(sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** `all` for a read whose select list is the dialect's `selectRecord`: each row is a record `T`. */
  records<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** Runs a write; resolves to the number of rows it changed. */
  run(sql: string, params: readonly unknown[]): Promise<number>;
  /**
   * Runs a write that may fail on a unique key and leaves the unit usable if it does (SQLite
   * undoes only the failed statement; PostgreSQL needs a SAVEPOINT around it). Only inside a
   * transaction, where every write of a unit runs.
   */
  guarded(sql: string, params: readonly unknown[]): Promise<number>;
}

/**
 * Memoises a resource's bespoke SQL texts per dialect: built the first time a unit of work of that
 * dialect asks, then shared by every later unit (no per-request string building).
 */
export function oncePerDialect<T>(build: (dialect: Dialect) => T): (dialect: Dialect) => T {
  const built = new WeakMap<Dialect, T>();
  return (dialect) => {
    let value = built.get(dialect);
    if (value === undefined) built.set(dialect, (value = build(dialect)));
    return value;
  };
}
