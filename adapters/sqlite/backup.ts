import { existsSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";

/**
 * A consistent copy of a live casekit SQLite file, taken with SQLite's online backup API: it
 * includes what sits in the WAL and runs while the server keeps writing (pages changed meanwhile
 * are copied again). Copying the .db file alone is not a backup in WAL mode.
 */
export async function backupSqliteFile(source: string, destination: string): Promise<{ pages: number }> {
  if (resolve(source) === resolve(destination)) throw new Error("the backup must go to another file");
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  if (existsSync(destination)) throw new Error(`${destination} exists already: choose a new file, a backup never overwrites`);
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(destination);
    return { pages: totalPages };
  } finally {
    db.close();
  }
}
