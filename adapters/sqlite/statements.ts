import type Database from "better-sqlite3";

export type SqliteDatabase = Database.Database;
export type Statement = Database.Statement<unknown[], unknown>;

/**
 * Prepared statements, prepared on first use (the tables exist only after `migrate`) and kept for
 * the life of the connection, keyed by their text. The texts are few: each declared resource's
 * own, a list's per filter shape, a multi-row insert's per row count (sql.ts builds each once).
 */
export class Statements {
  private readonly fixed = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  get(sql: string): Statement {
    let statement = this.fixed.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.fixed.set(sql, statement);
    }
    return statement;
  }
}

/** The adapter's own fixed SQL (every resource's is declared in adapters/resources/; transactions in group-commit.ts). */
export const sql = {
  ping: "SELECT 1",
} as const;
