import { closeSync, openSync, readSync } from "node:fs";

/**
 * Tells, with one `pread` and no SQLite transaction, whether any connection of any process may
 * have committed to a WAL database file since the previous look.
 *
 * SQLite keeps the WAL index in the `-shm` file beside the database, shared by every connection
 * of every process on the file. Its first 96 bytes are two copies of the WAL-index header
 * (https://www.sqlite.org/walformat.html, "The WAL-Index Header"): `iChange` counts the file's
 * transactions, `mxFrame` is the last committed frame, the salts change when the WAL is reset,
 * and a writer publishes a new header when a transaction commits (before COMMIT returns) or the
 * WAL is reset. Versions of SQLite that share one file must agree on this layout, so it does not
 * move. A header read now that is byte for byte the one read at the previous look therefore means
 * no commit in between.
 *
 * Any doubt reads as "may have changed", and the caller then asks SQLite as it would without this:
 * the two copies differ (a writer is publishing), an unknown layout version, an index not yet
 * initialised, a short read, an -shm that cannot be opened.
 */
export interface CommitWatch {
  /**
   * Reads the header and keeps it as the new mark. True only when it is trusted and equal to the
   * previous mark, which was trusted too: nothing has committed since that previous look.
   */
  unchanged(): boolean;
  close(): void;
}

/** The header's size; the -shm file starts with two copies of it. */
const headerBytes = 48;
/** `iVersion`, the header's first field, in the machine's byte order (the index is native-endian). */
const walIndexVersion = 3_007_000;
/** `isInit`: 1 once a connection has built the index. */
const isInitOffset = 12;

export function watchCommits(databaseFile: string): CommitWatch {
  let fd: number | undefined;
  let unreadable = false;
  const both = Buffer.alloc(headerBytes * 2);
  const mark = Buffer.alloc(headerBytes);
  let marked = false;

  function trusted(): boolean {
    if (unreadable) return false;
    try {
      // Opened on first use: the writer creates the -shm file when it opens the database.
      fd ??= openSync(`${databaseFile}-shm`, "r");
      if (readSync(fd, both, 0, both.length, 0) !== both.length) return false;
    } catch {
      // An -shm that cannot be opened or read (no permission, another platform's locking) will not become readable.
      unreadable = true;
      return false;
    }
    const version = both.readUInt32LE(0) === walIndexVersion || both.readUInt32BE(0) === walIndexVersion;
    return version && both[isInitOffset] === 1 && both.compare(both, headerBytes, headerBytes * 2, 0, headerBytes) === 0;
  }

  return {
    unchanged() {
      if (!trusted()) {
        marked = false;
        return false;
      }
      const same = marked && both.compare(mark, 0, headerBytes, 0, headerBytes) === 0;
      if (!same) both.copy(mark, 0, 0, headerBytes);
      marked = true;
      return same;
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      marked = false;
    },
  };
}
