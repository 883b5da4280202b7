import Database from "better-sqlite3";
import { rememberBounded } from "../../core/bounded-map.js";
import { CaseKitError } from "../../core/errors.js";
import { perTurn } from "../shared/per-turn.js";
import { accessVersionSql } from "../resources/organizations.js";
import { watchCommits } from "./commit-watch.js";
import type { CommitWatch } from "./commit-watch.js";
import { sqliteDialect } from "./dialect.js";
import type { SqliteDatabase, Statement } from "./statements.js";

/** Organizations whose versions are kept between commits, at most; past it the oldest go. */
const maxKeptVersions = 10_000;

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
 *
 * On a WAL file the versions read are also kept, and trusted only while no connection of any
 * process has committed to the file since they were read (commit-watch.ts: one `pread` of the
 * WAL-index header, where the statement costs a read transaction, two file locks and a `stat`).
 * A request that follows a commit, any commit, reads again. The header is looked at before the
 * statement runs, so a commit that lands between the two is seen at the next look.
 *
 * One look serves every read asked for in one turn of the event loop (../shared/per-turn.ts: it
 * is taken after the turn's requests arrived, so a commit that finished before a request arrived
 * is seen, as with a look per read). Under load a turn holds many requests, and the `pread` (a few
 * µs on a virtual machine, a tenth of a `GET /health`) is paid once for them all; so is the
 * statement after a commit, once per organization.
 */
export function accessVersionReader(
  writer: SqliteDatabase,
  file: string | undefined,
  watch: CommitWatch | undefined = file === undefined ? undefined : watchCommits(file),
): { read: (organizationId: string) => Promise<number | null>; close: () => void } {
  let connection: SqliteDatabase | undefined;
  let statement: Statement | undefined;
  let closed = false;
  /** Versions read since the last look that saw a commit (or could not tell). */
  const versions = new Map<string, number | null>();

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
  const readNow = (organizationId: string): number | null => (prepared().get(organizationId) as number | undefined) ?? null;

  // One look per turn, then each organization asked for: kept, or read once for the whole turn.
  const perTurnReads =
    watch === undefined
      ? undefined
      : perTurn<string, number | null>((organizationIds) => {
          if (closed) throw new CaseKitError("unavailable", "The storage is closed");
          if (!watch.unchanged()) versions.clear();
          const found = new Map<string, number | null>();
          for (const organizationId of organizationIds) {
            let version = versions.get(organizationId);
            if (version === undefined) rememberBounded(versions, organizationId, (version = readNow(organizationId)), maxKeptVersions);
            found.set(organizationId, version);
          }
          return found;
        }, null);

  return {
    async read(organizationId) {
      return perTurnReads === undefined ? readNow(organizationId) : perTurnReads.get(organizationId);
    },
    close() {
      closed = true;
      watch?.close();
      versions.clear();
      connection?.close();
      connection = undefined;
      statement = undefined;
    },
  };
}
