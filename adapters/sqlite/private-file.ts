import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Creates `path` empty with mode 0600 (and its missing folders with mode 0700) unless it exists,
 * before SQLite opens it: SQLite gives the -wal, -shm and -journal files it creates beside a
 * database the database file's own mode, so all of them stay readable by their owner only.
 * SQLite takes an empty file as an empty database. Returns whether it created the file.
 */
export function createPrivateFile(path: string): boolean {
  mkdirSync(dirname(resolve(path)), { recursive: true, mode: 0o700 });
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
