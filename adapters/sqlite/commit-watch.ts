import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";

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
 *
 * The descriptor it reads through is never closed while the -shm file may be in use: SQLite locks
 * the -shm with POSIX `fcntl` locks, and closing any descriptor a process holds on a file drops
 * every lock the process holds on it (https://www.sqlite.org/howtocorrupt.html, 2.2), the locks of
 * this process's own connections included. So descriptors are kept per file (device and inode) for
 * the process (`shmDescriptors`), shared by every watch on that file, and closed only once SQLite has
 * removed that file, which it does when the last connection of any process closes the database.
 */
export interface CommitWatch {
  /**
   * Reads the header and keeps it as the new mark. True only when it is trusted and equal to the
   * previous mark, which was trusted too: nothing has committed since that previous look.
   */
  unchanged(): boolean;
  /** Forgets the mark. The descriptor stays open (see above). */
  close(): void;
}

/** The header's size; the -shm file starts with two copies of it. */
const headerBytes = 48;
/** `iVersion`, the header's first field, in the machine's byte order (the index is native-endian). */
const walIndexVersion = 3_007_000;
/** `isInit`: 1 once a connection has built the index. */
const isInitOffset = 12;

/** Open -shm descriptors of this process, by `device:inode`. */
const shmDescriptors = new Map<string, number>();

/**
 * A descriptor on the -shm file that belongs to `databaseFile` now. SQLite resolves symbolic links
 * to the database before it names the -shm, and so does this. Descriptors of -shm files SQLite has
 * since removed are closed here: no connection of any process uses such a file any more.
 */
function shmDescriptor(databaseFile: string): number {
  const path = `${realpathSync(databaseFile)}-shm`;
  const { dev, ino } = statSync(path);
  const id = `${dev}:${ino}`;
  const known = shmDescriptors.get(id);
  if (known !== undefined) return known;
  for (const [other, fd] of shmDescriptors) {
    if (fstatSync(fd).nlink === 0) {
      closeSync(fd);
      shmDescriptors.delete(other);
    }
  }
  const fd = openSync(path, "r");
  const opened = fstatSync(fd);
  // Replaced between the stat and the open: no descriptor of the file SQLite may lock is closed by this.
  if (opened.dev !== dev || opened.ino !== ino) {
    shmDescriptors.set(`${opened.dev}:${opened.ino}`, fd);
    throw new Error("the -shm file changed while it was opened");
  }
  shmDescriptors.set(id, fd);
  return fd;
}

export function watchCommits(databaseFile: string): CommitWatch {
  let fd: number | undefined;
  let unreadable = false;
  const both = Buffer.alloc(headerBytes * 2);
  const mark = Buffer.alloc(headerBytes);
  let marked = false;

  function trusted(): boolean {
    if (unreadable) return false;
    try {
      // Found on first use: the writer creates the -shm file when it opens the database, and the
      // storage's connections keep that file (and so this descriptor's) in place while it is open.
      fd ??= shmDescriptor(databaseFile);
      if (readSync(fd, both, 0, both.length, 0) !== both.length) return false;
    } catch {
      // An -shm that cannot be found, opened or read (no permission, another platform's locking) will not become readable.
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
      marked = false;
    },
  };
}
