import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import type { Executor } from "../declare/dialect.js";
import { holding } from "./file-writers.js";

/**
 * Long units of work (a selectAll bulk: a thousand statements over 100 000 records, then a COMMIT
 * that writes tens of megabytes) run on a writer connection of their own in a worker thread, so
 * none of their SQL holds the event loop: between two statements the main thread only runs the
 * unit's JavaScript, and answers other requests while the worker executes.
 *
 * Why: better-sqlite3 runs every statement on the thread that calls it. A 100 000-alert
 * assignment spent about 0.6 s in SQLite, and its COMMIT alone held the loop 20–50 ms: with the
 * page cache holding the log rows' pages it writes them all at the COMMIT, and once a page the
 * transaction had already spilled to the WAL is changed again (an index's inner page, a log row's
 * index leaf), SQLite re-reads every frame written after it to rewrite the WAL's checksum chain
 * (13 000 reads and writes for such a bulk). A read arriving meanwhile waited for it.
 *
 * The storage runs a long unit `alone` in the writer's queue (group-commit.ts): no group is open
 * and none starts until it ends, so the worker's connection is the only writer, as a group's
 * would be. BEGIN IMMEDIATE, the statements, and COMMIT or ROLLBACK run in the worker; the unit's
 * guarantees are a group's (all or nothing, settled after its COMMIT, statements refused once
 * SQLite rolled the transaction back under it). A statement's error comes back as the
 * `SqliteError` it was (the dialect reads unique violations from it).
 *
 * The worker starts at the first long unit, is referenced only while one runs (it never keeps a
 * process alive by itself), and stops with the storage. If it cannot start, or dies, the units
 * after that run on the main connection, as every unit did before.
 */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const maxStatements = 512;
let db;
try {
  db = new Database(workerData.path, { fileMustExist: true });
  for (const pragma of workerData.pragmas) db.pragma(pragma);
} catch (error) {
  parentPort.postMessage({ id: 0, error: { message: String(error && error.message), code: error && error.code } });
  process.exit(1);
}
parentPort.postMessage({ id: 0, ready: true });
const statements = new Map();
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (statement === undefined) {
    if (statements.size >= maxStatements) statements.delete(statements.keys().next().value);
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
};
const bound = (params) => params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p));
const inside = () => {
  if (!db.inTransaction) throw new Error("casekit: the transaction of this unit of work was rolled back; nothing more can be written in it");
};
const handle = ({ id, op, sql, params, autocheckpoint }) => {
  if (op === "close") {
    db.close();
    parentPort.close();
    return;
  }
  try {
    let result;
    if (op === "begin") {
      db.pragma("wal_autocheckpoint = " + autocheckpoint);
      prepared("BEGIN IMMEDIATE").run();
    } else if (op === "commit") {
      inside();
      prepared("COMMIT").run();
    } else if (op === "rollback") {
      if (db.inTransaction) prepared("ROLLBACK").run();
    } else {
      inside();
      const statement = prepared(sql);
      if (op === "run") result = statement.run(...bound(params)).changes;
      else if (op === "rows") {
        // The page's JSON texts as they are: the main thread parses each (joined into one array
        // text, a page of 250 cost 1.0-1.2 ms against 0.44-0.52 ms).
        result = statement.pluck(true).all(...bound(params));
      } else {
        if (statement.reader) statement.pluck(false);
        result = statement.all(...bound(params));
      }
    }
    parentPort.postMessage({ id, result });
  } catch (error) {
    const sqlite = error instanceof Database.SqliteError;
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: sqlite ? error.code : undefined, sqlite } });
  }
};
parentPort.on("message", handle);
`;

type Op = "begin" | "commit" | "rollback" | "run" | "all" | "rows";

interface Reply {
  id: number;
  ready?: boolean;
  result?: unknown;
  error?: { message: string; code?: string; sqlite?: boolean };
}

export interface LongUnitSettings {
  /** The database file (WAL) the main writer has open. */
  path: string;
  /** PRAGMA statements the connection gets, the main writer's own settings. */
  pragmas: readonly string[];
  /** The main writer's current `wal_autocheckpoint`, read at each unit's start (0 while the checkpointer runs). */
  autocheckpoint: () => number;
}

export class LongUnitWriter {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  private exited: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private markReady: (() => void) | undefined;

  constructor(private readonly settings: LongUnitSettings) {}

  /**
   * Starts the worker the first time; resolves true while it runs, false once it could not start
   * or has stopped (long units then run on the main connection, as every unit did before).
   */
  async ready(): Promise<boolean> {
    this.starting ??= this.start();
    await this.starting;
    return !this.broken;
  }

  /**
   * Runs `work` in one transaction on the worker's connection: BEGIN IMMEDIATE, the statements
   * `work` sends through the executor, then COMMIT (ROLLBACK when `work` throws or the COMMIT
   * fails). Call it only while the main writer is held (`alone`).
   */
  async run<T>(work: (executor: Executor) => Promise<T>): Promise<T> {
    const worker = this.worker;
    if (worker === undefined) throw new Error("casekit: the long-unit writer was not started");
    // Another storage of this process writing the same file goes first (file-writers.ts).
    return holding(this.settings.path, async () => {
      worker.ref();
      try {
        await this.call("begin");
        let result: T;
        try {
          result = await work(this.executor);
          await this.call("commit");
        } catch (error) {
          await this.call("rollback").catch(() => undefined);
          throw error;
        }
        return result;
      } finally {
        worker.unref();
      }
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined || this.exited === undefined) return;
    this.broken = true;
    worker.ref();
    worker.postMessage({ id: 0, op: "close" });
    await this.exited;
  }

  private readonly executor: Executor = {
    all: (sql, params) => this.call("all", sql, params) as Promise<Record<string, unknown>[]>,
    records: async <T>(sql: string, params: readonly unknown[]) => ((await this.call("rows", sql, params)) as string[]).map((row) => JSON.parse(row) as T),
    run: (sql, params) => this.call("run", sql, params) as Promise<number>,
    // A failed statement is undone alone; the transaction stays usable, as on the main connection.
    guarded: (sql, params) => this.call("run", sql, params) as Promise<number>,
  };

  private start(): Promise<void> {
    let worker: Worker;
    try {
      const driver = createRequire(import.meta.url).resolve("better-sqlite3");
      worker = new Worker(workerSource, { eval: true, workerData: { driver, path: this.settings.path, pragmas: this.settings.pragmas } });
    } catch {
      // No driver to hand to a thread, or no thread: long units run on the main connection.
      this.broken = true;
      return Promise.resolve();
    }
    // Referenced until it is ready (a caller awaits that), then only while a unit runs.
    worker.on("message", (reply: Reply) => this.settle(reply));
    worker.on("error", () => {
      // "exit" follows.
    });
    this.exited = new Promise<void>((resolve) => {
      worker.once("exit", () => {
        this.broken = true;
        this.markReady?.();
        const lost = new Error("casekit: the thread running this long unit of work stopped; nothing of it was kept");
        for (const { reject } of this.pending.values()) reject(lost);
        this.pending.clear();
        resolve();
      });
    });
    this.worker = worker;
    return new Promise<void>((resolve) => (this.markReady = resolve));
  }

  private call(op: Op, sql?: string, params?: readonly unknown[]): Promise<unknown> {
    const worker = this.worker;
    if (worker === undefined || this.broken) return Promise.reject(new Error("casekit: the long-unit writer is not running"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        worker.postMessage(op === "begin" ? { id, op, autocheckpoint: this.settings.autocheckpoint() } : { id, op, sql, params });
      } catch (error) {
        // A parameter that cannot be cloned: this statement fails, the unit may go on.
        this.pending.delete(id);
        reject(error);
      }
    });
  }

  private settle(reply: Reply): void {
    if (reply.id === 0) {
      // Ready, or the connection could not be opened (the worker exits): either way start() is done.
      if (!reply.ready) this.broken = true;
      this.worker?.unref();
      this.markReady?.();
      return;
    }
    const waiting = this.pending.get(reply.id);
    if (waiting === undefined) return;
    this.pending.delete(reply.id);
    if (reply.error === undefined) waiting.resolve(reply.result);
    else waiting.reject(reply.error.sqlite ? new Database.SqliteError(reply.error.message, reply.error.code ?? "SQLITE_ERROR") : new Error(reply.error.message));
  }
}
