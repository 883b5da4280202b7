import { existsSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { createPrivateFile } from "./private-file.js";

export interface BackupProgress {
  totalPages: number;
  remainingPages: number;
}

/**
 * A consistent copy of a live casekit SQLite file, taken with SQLite's online backup API: it
 * includes what sits in the WAL and runs while the server keeps writing (pages changed meanwhile
 * are copied again). Copying the .db file alone is not a backup in WAL mode.
 *
 * The copy is created with mode 0600, in a folder that must exist, and never overwrites a file.
 * `onProgress` is told after each step of 100 pages.
 */
export async function backupSqliteFile(source: string, destination: string, options: { onProgress?: (progress: BackupProgress) => void } = {}): Promise<{ pages: number }> {
  if (resolve(source) === resolve(destination)) throw new Error("the backup must go to another file");
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  if (existsSync(destination)) throw new Error(`${destination} exists already: choose a new file, a backup never overwrites`);
  if (!existsSync(dirname(resolve(destination)))) throw new Error(`the folder ${dirname(resolve(destination))} does not exist: create it first`);
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    // Created here, empty and private, so that SQLite writes into a file only its owner reads.
    if (!createPrivateFile(destination)) throw new Error(`${destination} exists already: choose a new file, a backup never overwrites`);
    try {
      const { totalPages } = await db.backup(destination, {
        progress: (step) => {
          options.onProgress?.(step);
          return 100;
        },
      });
      return { pages: totalPages };
    } catch (error) {
      rmSync(destination, { force: true });
      throw error;
    }
  } finally {
    db.close();
  }
}
