import { closeSync, existsSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Creates `path` empty with mode 0600 unless it exists, before SQLite opens it: SQLite gives the
 * -wal, -shm and -journal files it creates beside a database the database file's own mode, so
 * all of them stay readable by their owner only. SQLite takes an empty file as an empty database.
 * Folders are the host's business: in a folder that does not exist nothing is created, and
 * SQLite's own "unable to open" follows. Returns whether it created the file.
 */
export function createPrivateFile(path: string): boolean {
  if (!existsSync(dirname(resolve(path)))) return false;
  try {
    // `wx`: never truncates nor touches the mode of a file that is there already.
    closeSync(openSync(path, "wx", 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Whether a database path names a file (not SQLite's private in-memory or temporary database). */
export function isFilePath(path: string): boolean {
  return path !== "" && path !== ":memory:" && !path.startsWith("file:");
}
