import Database from "better-sqlite3";
import { accessVersionSql } from "../resources/organizations.js";
import { sqliteDialect } from "./dialect.js";
import type { SqliteDatabase, Statement } from "./statements.js";

/**
 * Storage.accessVersion on SQLite: the organization's access version, read on every authenticated
 * request, as one prepared statement outside any unit of work (no queue, no BEGIN … COMMIT).
 *
 * On a WAL file it runs on a read-only connection of its own that never opens a transaction, so
 * each read is its own snapshot of the last commit (of any process on the file), and it never
 * waits for a free reader (`read` would, behind a long list or bulk read). Never directly on a
 * reader of the pool: one of those may be inside another unit's older snapshot, and a version
 * older than the last commit would let the cache use an entry past a change. Without such a file (in memory,
 * or `readers: 0`) it runs on the writer, which sees at least every commit, plus what a unit in
 * flight wrote, which at worst costs the cache a reload.
 */
export function accessVersionReader(writer: SqliteDatabase, file: string | undefined): { read: (organizationId: string) => Promise<number | null>; close: () => void } {
  let connection: SqliteDatabase | undefined;
  let statement: Statement | undefined;

  const prepared = (): Statement => {
    if (statement !== undefined) return statement;
    if (file !== undefined) {
      connection = new Database(file, { readonly: true, fileMustExist: true });
      // Waits only while the writer recovers the WAL index or resets the WAL: milliseconds.
      connection.pragma("busy_timeout = 5000");
    }
    // Prepared on first use: the column exists only once the storage has migrated.
    statement = (connection ?? writer).prepare(accessVersionSql(sqliteDialect)).pluck(true) as Statement;
    return statement;
  };

  return {
    async read(organizationId) {
      const version = prepared().get(organizationId) as number | undefined;
      return version ?? null;
    },
    close() {
      connection?.close();
      connection = undefined;
      statement = undefined;
    },
  };
}
