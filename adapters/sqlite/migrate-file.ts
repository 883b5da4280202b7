import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { lastAppliedMigration } from "./pending-migrations.js";
import type { SqliteDatabase } from "./statements.js";

/** A migration left rows pointing at rows that do not exist. */
export class ForeignKeyViolation extends Error {
  override name = "ForeignKeyViolation";
}

/**
 * Applies the pending migrations of `migrationsFolder` to `db`, with foreign keys off while they
 * run. A migration may rebuild a table, as SQLite's documented procedure for changes ALTER TABLE
 * cannot make does (https://www.sqlite.org/lang_altertable.html, "other kinds of table schema
 * changes"): create the new table, copy the rows, drop the old one, rename. With foreign keys on,
 * dropping a table that other rows reference fails; and the setting cannot change inside the
 * transaction drizzle's migrator runs them in, so it is turned off before and restored after.
 *
 * When any migration was applied, every reference is then checked (`foreign_key_check`), and a
 * violation stops the start with the tables it is in. A start that applied nothing does not scan.
 */
export function migrateFile(db: SqliteDatabase, migrationsFolder: string): void {
  const before = lastAppliedMigration(db);
  const enforced = db.pragma("foreign_keys", { simple: true }) === 1;
  db.pragma("foreign_keys = OFF");
  try {
    migrate(drizzle({ client: db }), { migrationsFolder });
  } finally {
    if (enforced) db.pragma("foreign_keys = ON");
  }
  if (lastAppliedMigration(db) === before) return;
  const violations = db.pragma("foreign_key_check") as { table: string; parent: string }[];
  if (violations.length > 0) {
    const pairs = [...new Set(violations.map((v) => `${v.table} → ${v.parent}`))].join(", ");
    throw new ForeignKeyViolation(`casekit: the migrations left ${violations.length} rows referencing rows that do not exist (${pairs})`);
  }
}
