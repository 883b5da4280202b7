/**
 * Preloaded into a `casekit serve` process (`node --import tsx --import …/record-sql.ts`) to
 * record every statement better-sqlite3 runs on the main thread, with its parameters, one JSON
 * line each in BENCH_SQL_LOG: prepared statements (run, get, all, iterate, with their raw/pluck/
 * expand mode), `exec` and `pragma`. SIGUSR2 writes a mark line, so the harness can tell what
 * came between two moments it chose. Only for the floor's capture: it slows the process it watches.
 */
import { openSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { isMainThread } from "node:worker_threads";
import type { Recorded } from "./recorded.js";
import { encodeParams } from "./recorded.js";

type Db = { readonly: boolean; prepare(sql: string): Stmt; exec(sql: string): unknown; pragma(sql: string, options?: { simple?: boolean }): unknown };
type Stmt = { source: string; database: Db; [method: string]: unknown };
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each patched method has its own `this`
type Method = (this: any, ...args: unknown[]) => unknown;

const logFile = process.env.BENCH_SQL_LOG;
if (isMainThread && logFile) {
  const fd = openSync(logFile, "a");
  const emit = (line: Recorded) => writeSync(fd, `${JSON.stringify(line)}\n`);
  const Database = createRequire(import.meta.url)("better-sqlite3") as { prototype: Record<string, Method> };
  const connections = new WeakMap<object, number>();
  let nextConnection = 0;
  const connection = (db: Db): number => {
    let id = connections.get(db);
    if (id === undefined) connections.set(db, (id = nextConnection++));
    return id;
  };
  /** raw/pluck/expand as last set on each statement. */
  const modes = new WeakMap<object, { raw?: boolean; pluck?: boolean; expand?: boolean }>();
  let statementPatched = false;
  let inPragma = false;

  const patchStatement = (statement: Stmt) => {
    statementPatched = true;
    const proto = Object.getPrototypeOf(statement) as Record<string, Method>;
    for (const mode of ["raw", "pluck", "expand"] as const) {
      const original = proto[mode]!;
      proto[mode] = function (this: object, ...args: unknown[]) {
        modes.set(this, { ...modes.get(this), [mode]: args[0] !== false });
        return original.apply(this, args);
      };
    }
    for (const method of ["run", "get", "all", "iterate"] as const) {
      const original = proto[method]!;
      proto[method] = function (this: Stmt, ...args: unknown[]) {
        // db.pragma runs its own statement: recorded once, as the pragma.
        if (!inPragma) emit({ kind: "call", connection: connection(this.database), readonly: this.database.readonly, method, sql: this.source, params: encodeParams(args), mode: modes.get(this) ?? {} });
        return original.apply(this, args);
      };
    }
  };

  const prepare = Database.prototype.prepare!;
  Database.prototype.prepare = function (this: Db, ...args: unknown[]) {
    const statement = prepare.apply(this, args) as Stmt;
    if (!statementPatched) patchStatement(statement);
    return statement;
  };
  const exec = Database.prototype.exec!;
  Database.prototype.exec = function (this: Db, ...args: unknown[]) {
    emit({ kind: "call", connection: connection(this), readonly: this.readonly, method: "exec", sql: String(args[0]), params: "[]", mode: {} });
    return exec.apply(this, args);
  };
  const pragma = Database.prototype.pragma!;
  Database.prototype.pragma = function (this: Db, ...args: unknown[]) {
    const simple = (args[1] as { simple?: boolean } | undefined)?.simple === true;
    emit({ kind: "call", connection: connection(this), readonly: this.readonly, method: "pragma", sql: String(args[0]), params: "[]", mode: { pluck: simple } });
    inPragma = true;
    try {
      return pragma.apply(this, args);
    } finally {
      inPragma = false;
    }
  };
  process.on("SIGUSR2", () => emit({ kind: "mark" }));
}
