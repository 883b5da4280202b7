/**
 * A SQLite storage over a connection the test holds and watches, for the group-commit tests: the
 * connection's `verbose` hook records the transaction statements the writer runs (BEGIN, SAVEPOINT,
 * RELEASE, ROLLBACK TO, ROLLBACK, COMMIT) and the reads and writes of organizations' counters in
 * one log the test appends its own markers to, so the log says which unit ran in which group, what
 * it read and wrote of the counters, and what settled when. The database (in memory, or a
 * WAL file with a second read-only connection for checks from outside) also gets two probe tables
 * whose foreign key is checked only at COMMIT: a unit that inserts an orphan child makes its
 * group's COMMIT fail, a real COMMIT failure on demand.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Storage } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { SqliteStorageOptions } from "../../adapters/sqlite/index.js";
import { migratedFiles, migratedMemoryDatabase } from "./migrated-sqlite.js";

const transactionStatement = /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/;
/** The organization's counters (adapters/resources/organization-counters.ts), logged as `read counters` / `write counters`. */
const countersRead = /^SELECT case_seq, /;
const countersWrite = /^UPDATE organizations SET case_seq = /;

/** The statement the tests run to roll the group back under a unit, as SQLite does on SQLITE_FULL. */
export const outsideRollback = "ROLLBACK TRANSACTION";

export interface LoggedSqlite {
  storage: Storage;
  /** The writer's connection (statements run on it land in whatever unit is running). */
  db: Database.Database;
  /** Transaction statements in the order they ran, and the test's own markers. */
  log: string[];
  /** A second, read-only connection to the file (undefined in memory). */
  outside: Database.Database | undefined;
  /** Inserts a child with no parent: the group's COMMIT will fail unless this unit is undone. */
  orphan(): void;
  close(): Promise<void>;
}

export type LoggedSqliteOptions = Omit<SqliteStorageOptions, "path" | "database">;

/** A fresh migrated database, in memory or in a new file under `dir`. */
export function loggedSqliteFactory(dir: string): (where: "memory" | "file", options?: LoggedSqliteOptions) => Promise<LoggedSqlite> {
  const migratedFile = migratedFiles(join(dir, "template.sqlite"));
  let files = 0;
  return async (where, options = {}) => {
    const log: string[] = [];
    const verbose = (statement: unknown) => {
      const text = String(statement);
      if (transactionStatement.test(text)) log.push(text);
      else if (countersRead.test(text)) log.push("read counters");
      else if (countersWrite.test(text)) log.push("write counters");
    };
    let db: Database.Database;
    let path: string | undefined;
    if (where === "memory") {
      const migrated = await migratedMemoryDatabase();
      db = new Database(migrated.serialize(), { verbose });
      migrated.close();
    } else {
      path = join(dir, `logged-${++files}.sqlite`);
      await migratedFile(path);
      db = new Database(path, { verbose });
    }
    db.exec(`
      CREATE TABLE probe_parent (id INTEGER PRIMARY KEY);
      CREATE TABLE probe_child (parent INTEGER REFERENCES probe_parent (id) DEFERRABLE INITIALLY DEFERRED);
    `);
    log.length = 0;
    const storage = createSqliteStorage({ database: db, ...options });
    const outside = path === undefined ? undefined : new Database(path, { readonly: true });
    const orphan = db.prepare("INSERT INTO probe_child (parent) VALUES (999)");
    return {
      storage,
      db,
      log,
      outside,
      orphan: () => void orphan.run(),
      async close() {
        await storage.close();
        outside?.close();
        db.close();
      },
    };
  };
}
