import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { CaseKitError } from "../../core/errors.js";
import type { Storage, UnitOfWork } from "../../core/ports/storage.js";
import { resolveMigrationsFolder } from "../shared/migrations-folder.js";
import { startCheckpointer } from "./checkpointer.js";
import { SerialQueue } from "./queue.js";
import type { UnitState } from "./repositories.js";
import { createUnitOfWork } from "./repositories.js";
import type { SqliteDatabase } from "./statements.js";
import { Statements, sql } from "./statements.js";

export type { SqliteDatabase } from "./statements.js";

/** Attempts at migrating when another process migrates the same file at the same moment. */
const migrateAttempts = 3;

export type SqliteStorageOptions = ({ path: string } | { database: SqliteDatabase }) & {
  /** Where the migrations are; found next to the package by default (see resolveMigrationsFolder). */
  migrationsFolder?: string;
  /**
   * Where WAL checkpoints run, for a database file this storage opens: `background` (default) in a
   * worker thread of their own, off the request path (see checkpointer.ts); `inline`, SQLite's
   * automatic checkpoint inside the commit that fills the WAL.
   */
  checkpoints?: "background" | "inline";
};

/**
 * The embedded storage: one better-sqlite3 connection behind the core's storage port.
 *
 * `{ path }` opens (and on `close()` closes) a database file, or an in-memory one for ":memory:".
 * `{ database }` uses a connection the caller opened; `close()` then leaves it open. Do not run
 * statements on that connection yourself while the storage is in use: they would land inside
 * whatever unit of work is open.
 * Either way the connection gets foreign_keys=ON, busy_timeout=5000, synchronous=NORMAL and, for
 * files, journal_mode=WAL; a file it opens gets its WAL checkpoints in a background thread.
 *
 * Units of work are serialised through one promise queue (see SerialQueue): `transaction` holds
 * it from BEGIN IMMEDIATE to COMMIT or ROLLBACK, `read` holds it while it reads, so no unit ever
 * sees or joins another's uncommitted statements on the shared connection. BEGIN IMMEDIATE takes
 * the write lock up front, so units in other processes wait (busy_timeout, up to 5 s; the wait
 * blocks this process's event loop, as every better-sqlite3 call does) instead of failing halfway. Never call `storage.transaction` or `storage.read` from inside a unit of work: it would
 * wait for the unit it runs in.
 */
export function createSqliteStorage(options: SqliteStorageOptions): Storage {
  const owned = "path" in options;
  const db: SqliteDatabase = owned ? new Database(options.path) : options.database;
  configure(db);
  const checkpointer =
    owned && !db.memory && !db.readonly && options.checkpoints !== "inline" && db.pragma("journal_mode", { simple: true }) === "wal"
      ? startCheckpointer(db, options.path)
      : undefined;
  const statements = new Statements(db);
  const queue = new SerialQueue();
  let closing: Promise<void> | undefined;

  const ensureOpen = (): void => {
    if (closing !== undefined) throw new CaseKitError("unavailable", "The storage is closed");
  };

  function rollback(): void {
    if (!db.inTransaction) return; // SQLite already rolled back (e.g. after SQLITE_FULL)
    try {
      statements.get(sql.rollback).run();
    } catch {
      // Nothing better to do: the caller gets the error that made us roll back.
    }
  }

  return {
    async transaction<T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
      ensureOpen();
      return queue.run(async () => {
        statements.get(sql.begin).run();
        const unit: UnitState = { open: true, writable: true };
        try {
          const result = await work(createUnitOfWork(statements, unit));
          unit.open = false;
          statements.get(sql.commit).run();
          return result;
        } catch (error) {
          unit.open = false;
          rollback();
          throw error;
        }
      });
    },

    async read<T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
      ensureOpen();
      return queue.run(async () => {
        const unit: UnitState = { open: true, writable: false };
        try {
          return await work(createUnitOfWork(statements, unit));
        } finally {
          unit.open = false;
        }
      });
    },

    async migrate(): Promise<void> {
      ensureOpen();
      const migrationsFolder = options.migrationsFolder ?? resolveMigrationsFolder("sqlite");
      await queue.run(async () => {
        const orm = drizzle({ client: db });
        for (let attempt = 1; ; attempt++) {
          try {
            migrate(orm, { migrationsFolder });
            return;
          } catch (error) {
            // drizzle's migrator reads which migrations are applied before it takes the write
            // lock, so a process starting at the same moment as another can try to apply what
            // the other has just committed, and fail. Its attempt rolled back; the next one
            // reads the committed state and applies only what is still missing.
            if (attempt >= migrateAttempts) throw error;
          }
        }
      });
    },

    async ping(): Promise<void> {
      ensureOpen();
      statements.get(sql.ping).get();
    },

    close(): Promise<void> {
      // Units already queued finish first; later calls are refused.
      closing ??= queue.run(async () => {
        await checkpointer?.stop();
        if (owned) db.close();
      });
      return closing;
    },
  };
}

function configure(db: SqliteDatabase): void {
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  if (!db.memory && !db.readonly) db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
}
