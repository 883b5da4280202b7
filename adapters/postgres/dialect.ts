/** PostgreSQL's side of the generic SQL (adapters/declare/dialect.ts). */
import pg from "pg";
import type { Column, ColumnKind } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import type { Field } from "../declare/resource.js";
import { sendQuery } from "./send-query.js";

/** SQLSTATE unique_violation. */
export const uniqueViolationCode = "23505";

/** Each column kind's SQL type in a recordset (the types declared-table.ts gives the columns). */
const recordsetTypes: Record<ColumnKind, (column: Column) => string> = {
  id: () => "text",
  text: () => "text",
  enum: () => "text",
  timestamp: () => "timestamptz",
  int: (column) => (column.big ? "bigint" : "integer"),
  float: () => "double precision",
  bool: () => "boolean",
  json: () => "jsonb",
};

/**
 * A column as its record value: timestamps as canonical ISO text (what `toISOString` writes, and
 * cheaper than the Date node-postgres would build), 64-bit integers as doubles (node-postgres
 * hands bigint over as text); the rest node-postgres reads as the record holds it.
 */
function recordValue({ name, column }: Field): string {
  if (column.kind === "timestamp") return `to_char(${name} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  if (column.kind === "int" && column.big) return `${name}::float8`;
  return name;
}

export const postgresDialect: Dialect = {
  param: (n) => `$${n}`,
  maxParams: 65_535,
  skipLocked: " FOR UPDATE SKIP LOCKED",
  holdRow: " FOR NO KEY UPDATE",
  anyOf: (column, param) => `${column} = ANY(${param})`,
  // An array, not IN: IN becomes a semi-join, which PostgreSQL runs as a hash of the holders and a
  // scan or merge over the whole table, then a sort; `= ANY` of an array is an index condition, so
  // the id index is walked backward through the array's ids, already in the list's order.
  idAmong: (column, subquery) => `${column} = ANY(ARRAY(${subquery}))`,
  list: (values) => values,
  // `?|` for an array of names; for an array of objects, containment of any `[{key: name}]`,
  // which a declared GIN index of the column (jsonb_path_ops) serves.
  jsonHasAny: (column, param, key) => (key === undefined ? `${column} ?| ${param}` : `${column} @> ANY(${param}::jsonb[])`),
  jsonNames: (names, key) => (key === undefined ? names : names.map((name) => JSON.stringify([{ [key]: name }]))),
  // likePattern escapes with `\`, PostgreSQL's default LIKE escape.
  containsText: (column, param) => `${column} ILIKE ${param}`,
  recordset: (param, columns) => `jsonb_to_recordset(${param}::jsonb) AS r(${columns.map((c) => `${c.name} ${recordsetTypes[c.column.kind](c.column)}`).join(", ")})`,
  // jsonb keeps an object's keys shorter first (in UTF-8 bytes), then by their bytes.
  jsonKeyOrder: (keys) => [...keys].sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b))),
  selectRecord: ({ fields }) => fields.map((f) => `${recordValue(f)} AS "${f.key}"`).join(", "),
  uniqueViolation: (error) =>
    error instanceof pg.DatabaseError && error.code === uniqueViolationCode ? { constraint: error.constraint } : undefined,
};

/**
 * Statement names by text, the same in every connection: a named query is parsed and planned
 * once per connection (node-postgres remembers which names each connection has prepared).
 */
const names = new Map<string, string>();
const nameOf = (text: string): string => {
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `casekit_${names.size + 1}`));
  return name;
};

/**
 * The executor of one unit on its pooled connection. The connection runs statements in the order
 * they are sent; a unit may have more than one in flight (a bulk reads its next page while it
 * writes this one). A guarded statement's savepoint is the exception: a statement sent between
 * its SAVEPOINT and its ROLLBACK TO would fail with it (the transaction is aborted until then),
 * so statements sent meanwhile wait for it to end.
 */
export function postgresExecutor(client: pg.ClientBase, giveWay?: () => Promise<void> | undefined): Executor {
  /** Settles when the guarded statement in progress, if any, has ended. */
  let guarding: Promise<void> | undefined;
  const sendNow = (text: string, params: readonly unknown[]) => sendQuery(client, text, params, nameOf(text));
  const sendAfter = async (waiting: Promise<void>, text: string, params: readonly unknown[]) => {
    await waiting;
    return sendNow(text, params);
  };
  // A long unit's statement first gives way to short units (short-units-first.ts); most find none.
  const send =
    giveWay === undefined
      ? sendNow
      : (text: string, params: readonly unknown[]) => {
          const waiting = giveWay();
          return waiting === undefined ? sendNow(text, params) : sendAfter(waiting, text, params);
        };
  const afterGuarded = async (text: string, params: readonly unknown[]) => {
    while (guarding !== undefined) await guarding;
    return send(text, params);
  };
  // No guarded statement in progress (nearly always): sent at once, with no extra turn.
  const query = (text: string, params: readonly unknown[]) => (guarding === undefined ? send(text, params) : afterGuarded(text, params));
  return {
    all: async (text, params) => (await query(text, params)).rows,
    records: async <T>(text: string, params: readonly unknown[]) => (await query(text, params)).rows as T[],
    run: async (text, params) => (await query(text, params)).rowCount ?? 0,
    // A failed statement aborts a PostgreSQL transaction; rolling back to the savepoint undoes only it.
    async guarded(text, params) {
      while (guarding !== undefined) await guarding;
      let ended!: () => void;
      guarding = new Promise<void>((resolve) => (ended = resolve));
      try {
        await sendQuery(client, "SAVEPOINT casekit_guarded");
        try {
          const changed = (await send(text, params)).rowCount ?? 0;
          await sendQuery(client, "RELEASE SAVEPOINT casekit_guarded");
          return changed;
        } catch (error) {
          await sendQuery(client, "ROLLBACK TO SAVEPOINT casekit_guarded");
          throw error;
        }
      } finally {
        guarding = undefined;
        ended();
      }
    },
  };
}
