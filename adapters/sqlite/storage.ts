import { statSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { CaseKitError } from "../../core/errors.js";
import type { Storage, StorageStats, TransactionOptions, UnitOfWork } from "../../core/ports/storage.js";
import { resolveMigrationsFolder } from "../shared/migrations-folder.js";
import { accessVersionReader } from "./access-version.js";
import { ForeignKeyViolation, migrateFile } from "./migrate-file.js";
import { startCheckpointer } from "./checkpointer.js";
import type { GroupLimits } from "./group-commit.js";
import { defaultGroupLimits, GroupCommit, insideGroup, soleTransaction } from "./group-commit.js";
import { defaultReaderCount, ReaderPool } from "./readers.js";
import { yieldingExecutor } from "./yielding-unit.js";
import { ParsedRecords } from "./parsed-records.js";
import { LongUnitWriter } from "./long-units.js";
import { createPrivateFile, isFilePath } from "./private-file.js";
import { createUnitOfWork } from "../resources/unit-of-work.js";
import type { Executor } from "../declare/dialect.js";
import type { UnitState } from "../shared/unit-state.js";
import { finishUnit } from "../shared/unit-state.js";
import type { UnitCarry } from "../shared/unit-carry.js";
import { sqliteDialect, sqliteExecutor } from "./dialect.js";
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
  /**
   * Read-only connections that serve `read` on a WAL file (default 2, 0 for none); see
   * readers.ts. An in-memory database has none: no other connection can see it.
   */
  readers?: number;
  /**
   * The WAL file size (bytes, default 64 MiB) past which it is checkpointed back to empty
   * (TRUNCATE, see checkpointer.ts) and to which a restarted WAL is cut (journal_size_limit).
   */
  walLimitBytes?: number;
  /**
   * Read records kept parsed while their stored text is unchanged, bounded by the length of those
   * texts (UTF-16 code units; default 8 Mi, about 16 MiB of texts and as much again of records;
   * 0 keeps none). See parsed-records.ts.
   */
  parsedRecordChars?: number;
  /**
   * The most units of work one group commit holds, and how long (ms) it keeps taking more (default
   * 64 units, 10 ms; see group-commit.ts).
   */
  groupLimits?: Partial<GroupLimits>;
  /**
   * Where long units of work (`transaction(work, { long: true })`, the bulks) run on a WAL file:
   * `worker` (default) on a writer connection in a worker thread, so their statements and COMMIT
   * never hold the event loop (long-units.ts); `inline`, on the main connection like every unit.
   */
  longUnits?: "worker" | "inline";
};

/** Default `walLimitBytes`. */
export const defaultWalLimitBytes = 64 * 1024 * 1024;

/**
 * The embedded storage: one better-sqlite3 writer connection behind the core's storage port, and,
 * for a database file, reader connections beside it.
 *
 * `{ path }` opens (and on `close()` closes) a database file, or an in-memory one for ":memory:".
 * A file it creates is private to its owner (mode 0600), and so are the -wal and -shm files
 * SQLite makes beside it; it creates no folder.
 * `{ database }` uses a connection the caller opened; `close()` then leaves it open. Do not run
 * statements on that connection yourself while the storage is in use: they would land inside
 * whatever unit of work is open.
 * Either way the connection gets foreign_keys=ON, busy_timeout=5000, synchronous=NORMAL,
 * journal_size_limit and, for files, journal_mode=WAL; a file it opens gets its WAL checkpoints
 * in a background thread.
 *
 * Units of work on the writer are group-committed (group-commit.ts): the units waiting at the same
 * moment share one BEGIN IMMEDIATE … COMMIT, each inside its own savepoint, run one at a time in
 * the order they asked. A unit that throws leaves nothing (its savepoint is rolled back), no unit
 * ever sees another's uncommitted statements before its own start, and none settles before the
 * COMMIT holding its writes; if the COMMIT fails, every unit of the group rejects. BEGIN IMMEDIATE
 * takes the write lock up front, so units in other processes wait (busy_timeout, up to 5 s; the
 * wait blocks this process's event loop, as every better-sqlite3 call does) instead of failing
 * halfway.
 *
 * `read` runs on a reader connection when the database is a WAL file (`{ path }`, or a caller's
 * connection to a file, whose `name` the readers open): a read never waits behind a unit of work,
 * a checkpoint or a backup, and sees one committed snapshot (readers.ts). In memory, and when
 * `readers: 0`, reads take their turn on the writer between two groups, after the units queued
 * before them have committed.
 *
 * A unit that has kept the main thread for 2 ms lets the event loop take a turn before its next
 * storage call (yielding-unit.ts), so a long unit of work delays other requests by milliseconds,
 * not by its whole length. Never call `storage.transaction` or `storage.read` from inside a unit
 * of work: it would wait for the unit it runs in.
 */
export function createSqliteStorage(options: SqliteStorageOptions): Storage {
  const owned = "path" in options;
  if (owned && isFilePath(options.path)) createPrivateFile(options.path);
  const db: SqliteDatabase = owned ? new Database(options.path) : options.database;
  const walLimitBytes = options.walLimitBytes ?? defaultWalLimitBytes;
  configure(db, walLimitBytes);
  const wal = !db.memory && db.pragma("journal_mode", { simple: true }) === "wal";
  const writer = new GroupCommit(db, { ...defaultGroupLimits, ...options.groupLimits });
  const checkpointer =
    owned && wal && !db.readonly && options.checkpoints !== "inline"
      ? startCheckpointer(db, options.path, { walLimitBytes, holdWriter: (task) => writer.alone(task) })
      : undefined;
  const readerCount = options.readers ?? defaultReaderCount;
  // A connection's `name` is the file it opened ("" for a private temporary database).
  const walFile = wal && db.name !== "" && !db.name.startsWith("file:") ? resolve(db.name) : undefined;
  const readers = walFile !== undefined && readerCount > 0 ? new ReaderPool(walFile, readerCount) : undefined;
  const statements = new Statements(db);
  const accessVersions = accessVersionReader(db, readers ? resolve(db.name) : undefined);
  const writes = insideGroup(db, sqliteExecutor(statements));
  const parsedRecords = new ParsedRecords(options.parsedRecordChars);
  // Long units (bulks) on a writer connection in a worker thread, for a WAL file the readers can open too.
  const longUnits =
    walFile !== undefined && !db.readonly && options.longUnits !== "inline"
      ? new LongUnitWriter({ path: walFile, pragmas: pragmasOf(walLimitBytes), autocheckpoint: () => Number(db.pragma("wal_autocheckpoint", { simple: true })) })
      : undefined;
  let closing: Promise<void> | undefined;

  const ensureOpen = (): void => {
    if (closing !== undefined) throw new CaseKitError("unavailable", "The storage is closed");
  };

  /** Runs read-only `work` on `on`'s connection; the tx is refused once the work has settled. */
  async function readUnit<T>(on: Statements, work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
    const unit: UnitState = { open: true, writable: false };
    try {
      return await work(createUnitOfWork(sqliteDialect, yieldingExecutor(sqliteExecutor(on, { storedText: parsedRecords })), unit));
    } finally {
      unit.open = false;
    }
  }

  return {
    async transaction<T>(work: (tx: UnitOfWork) => Promise<T>, transactionOptions?: TransactionOptions): Promise<T> {
      ensureOpen();
      // In a group, a unit gets the group's carry (adapters/shared/unit-carry.ts); alone, none.
      const run = async (executor: Executor, carry?: UnitCarry): Promise<T> => {
        const unit: UnitState = carry ? { open: true, writable: true, carry } : { open: true, writable: true };
        try {
          const result = await work(createUnitOfWork(sqliteDialect, yieldingExecutor(executor), unit));
          await finishUnit(unit);
          return result;
        } finally {
          unit.open = false;
        }
      };
      // A long unit keeps its place in the queue; if the worker cannot run it, it runs here, alone.
      if (transactionOptions?.long && longUnits !== undefined) {
        return writer.alone(async () => ((await longUnits.ready()) ? longUnits.run(run) : soleTransaction(db, () => run(writes))));
      }
      return writer.unit((carry) => run(writes, carry));
    },

    async read<T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
      ensureOpen();
      if (readers) return readers.run((on) => readUnit(on, work));
      return writer.alone(() => readUnit(statements, work));
    },

    async migrate(): Promise<void> {
      ensureOpen();
      const migrationsFolder = options.migrationsFolder ?? resolveMigrationsFolder("sqlite");
      await writer.alone(async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            migrateFile(db, migrationsFolder);
            return;
          } catch (error) {
            // A process starting while another migrates the file waits for the write lock up to
            // the busy timeout; a long migration (a table rebuilt) can outlast it. The attempt
            // rolled back; the next one reads the ledger again and applies only what is missing.
            if (error instanceof ForeignKeyViolation || attempt >= migrateAttempts) throw error;
          }
        }
      });
    },

    async ping(): Promise<void> {
      ensureOpen();
      // Through a reader when there are readers: what answers GETs is what must answer here.
      if (readers) readers.answer((on) => on.get(sql.ping).get());
      else statements.get(sql.ping).get();
    },

    async accessVersion(organizationId: string): Promise<number | null> {
      ensureOpen();
      return accessVersions.read(organizationId);
    },

    stats(): StorageStats {
      if (walFile === undefined) return {};
      const use = readers ? { readers: readers.use(), parsedRecords: parsedRecords.size() } : {};
      try {
        return { walBytes: statSync(`${walFile}-wal`).size, ...use };
      } catch {
        return { walBytes: 0, ...use }; // no WAL file between a checkpoint on close and the next write
      }
    },

    close(): Promise<void> {
      // Units already queued finish first; later calls are refused.
      accessVersions.close();
      closing ??= Promise.all([
        readers?.close(),
        writer.alone(async () => {
          await longUnits?.close();
          await checkpointer?.stop();
        }),
      ]).then(() => {
        if (owned) db.close();
      });
      return closing;
    },
  };
}

function configure(db: SqliteDatabase, walLimitBytes: number): void {
  for (const pragma of pragmasOf(walLimitBytes)) db.pragma(pragma);
  if (!db.memory && !db.readonly) db.pragma("journal_mode = WAL");
}

/** The settings of every writer connection (the main one, the long units' one). */
function pragmasOf(walLimitBytes: number): string[] {
  return [
    "foreign_keys = ON",
    "busy_timeout = 5000",
    "synchronous = NORMAL",
    // Savepoints (one per unit of a group commit) and sorts keep their journals in memory, not in temp files.
    "temp_store = MEMORY",
    // A WAL that restarts after a complete checkpoint is cut back to this size, not kept at its peak.
    `journal_size_limit = ${Math.floor(walLimitBytes)}`,
  ];
}
