import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { resolveMigrationsFolder } from "../shared/migrations-folder.js";

/**
 * The shipped migrations a SQLite file has not had yet, by tag (`0007_group_entries`), oldest
 * first; all of them for a file that does not exist yet. drizzle's ledger records the timestamp of
 * the last migration it applied, so the ones after it are the pending ones. Read-only.
 */
export function pendingSqliteMigrations(path: string, migrationsFolder = resolveMigrationsFolder("sqlite")): string[] {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string; when: number }[] };
  let applied = 0;
  if (existsSync(path)) {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      applied = lastAppliedMigration(db) ?? 0;
    } finally {
      db.close();
    }
  }
  return journal.entries.filter((entry) => entry.when > applied).map((entry) => entry.tag);
}

/** The timestamp drizzle recorded for the last migration applied to `db`; undefined when the file never was migrated. */
export function lastAppliedMigration(db: Database.Database): number | undefined {
  const ledger = db.prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'").get();
  if (!ledger) return undefined;
  return Number((db.prepare("select max(created_at) as applied from __drizzle_migrations").get() as { applied: number | string | null }).applied ?? 0);
}
