import { readMigrationFiles } from "drizzle-orm/migrator";
import { lastAppliedMigration } from "./pending-migrations.js";
import type { SqliteDatabase } from "./statements.js";

/** A migration would leave rows pointing at rows that do not exist: it was rolled back. */
export class ForeignKeyViolation extends Error {
  override name = "ForeignKeyViolation";
}

/** drizzle's ledger of applied migrations, as its migrator creates it: files migrated by either agree. */
const ledger = "__drizzle_migrations";

/**
 * Applies the migrations of `migrationsFolder` that `db` has not had, all in one transaction, as
 * drizzle's migrator does and with its ledger (each migration's hash and folder timestamp; the
 * files are read by drizzle's own `readMigrationFiles`), with two differences:
 *
 * - Foreign keys are off while they run. A migration may rebuild a table, as SQLite's documented
 *   procedure for changes ALTER TABLE cannot make does (https://www.sqlite.org/lang_altertable.html,
 *   "other kinds of table schema changes"): create the new table, copy the rows, drop the old
 *   one, rename. With foreign keys on, dropping a table other rows reference fails, and the
 *   setting cannot change inside a transaction. So before the transaction it is turned off, and
 *   inside it, once the migrations ran, every reference is checked (`foreign_key_check`): a
 *   reference left dangling rolls them all back and throws ForeignKeyViolation, naming the tables.
 *   One that dangled before they ran (a file an embedder wrote with foreign keys off) is not theirs
 *   and does not stop them.
 * - The transaction is `BEGIN IMMEDIATE` and the ledger is read inside it, so processes starting
 *   together on one file apply each migration once: the second waits for the first and finds
 *   nothing left to do.
 *
 * A file with nothing pending is not scanned.
 */
export function migrateFile(db: SqliteDatabase, migrationsFolder: string): void {
  const migrations = readMigrationFiles({ migrationsFolder });
  const enforced = db.pragma("foreign_keys", { simple: true }) === 1;
  db.pragma("foreign_keys = OFF");
  try {
    db.exec(`CREATE TABLE IF NOT EXISTS "${ledger}" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`);
    db.exec("BEGIN IMMEDIATE");
    try {
      const applied = lastAppliedMigration(db) ?? 0;
      const pending = migrations.filter((migration) => migration.folderMillis > applied);
      // What dangled before (a file written with foreign keys off) is not the migrations' doing.
      const before = pending.length > 0 ? danglingReferences(db) : new Map<string, number>();
      for (const migration of pending) {
        for (const statement of migration.sql) db.prepare(statement).run();
        db.prepare(`INSERT INTO "${ledger}" ("hash", "created_at") VALUES (?, ?)`).run(migration.hash, migration.folderMillis);
      }
      if (pending.length > 0) refuseNewDanglingReferences(before, danglingReferences(db));
      db.exec("COMMIT");
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  } finally {
    if (enforced) db.pragma("foreign_keys = ON");
  }
}

/**
 * How many rows' references point nowhere (`foreign_key_check`), per table and constraint. Counted,
 * not listed by row: a rebuilt table's rows get new rowids.
 */
function danglingReferences(db: SqliteDatabase): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of db.pragma("foreign_key_check") as { table: string; parent: string; fkid: number }[]) {
    const constraint = `${row.table} → ${row.parent} (#${row.fkid})`;
    counts.set(constraint, (counts.get(constraint) ?? 0) + 1);
  }
  return counts;
}

function refuseNewDanglingReferences(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): void {
  const grown = [...after].filter(([constraint, count]) => count > (before.get(constraint) ?? 0));
  if (grown.length === 0) return;
  const rows = grown.reduce((sum, [constraint, count]) => sum + count - (before.get(constraint) ?? 0), 0);
  throw new ForeignKeyViolation(`casekit: the migrations would leave ${rows} more rows referencing rows that do not exist (${grown.map(([constraint]) => constraint).join(", ")}); none was applied`);
}
