import type Database from "better-sqlite3";

export type SqliteDatabase = Database.Database;
export type Statement = Database.Statement<unknown[], unknown>;

/** Dynamic statements (lists, one per filter shape) kept prepared at most. */
const maxDynamic = 256;

/**
 * Prepared statements, prepared on first use (the tables exist only after `migrate`) and kept for
 * the life of the connection. Fixed statements are keyed by their SQL constant below; dynamic
 * ones (lists) share a bounded cache, the oldest preparation dropped first.
 */
export class Statements {
  private readonly fixed = new Map<string, Statement>();
  private readonly dynamic = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  get(sql: string): Statement {
    let statement = this.fixed.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.fixed.set(sql, statement);
    }
    return statement;
  }

  /** A dynamic statement (a list with one filter shape), rows as objects. */
  getDynamic(sql: string): Statement {
    let statement = this.dynamic.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      if (this.dynamic.size >= maxDynamic) this.dynamic.delete(this.dynamic.keys().next().value!);
      this.dynamic.set(sql, statement);
    }
    return statement;
  }
}

/** The adapter's own fixed SQL (every resource's is declared in adapters/resources/; transactions in group-commit.ts). */
export const sql = {
  ping: "SELECT 1",
} as const;
