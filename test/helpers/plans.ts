/**
 * Reading query plans on both adapters, for the tests that pin which index a list or metric uses.
 * SQLite: EXPLAIN QUERY PLAN against a freshly migrated in-memory database (plans there do not
 * depend on data). PostgreSQL: EXPLAIN in a schema of its own, seeded by the test and analyzed,
 * since the planner's choice depends on row counts.
 */
import Database from "better-sqlite3";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import pg from "pg";
import type { Storage } from "../../core/index.js";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { resolveMigrationsFolder } from "../../adapters/sqlite/index.js";
import { freshSchemaName, postgresUrl } from "./postgres.js";

/** SQLite's plan for one query of a repository, its rows' details one a line. */
export function sqlitePlan(query: { text: string; params: unknown[] }): string {
  const db = new Database(":memory:");
  migrate(drizzleSqlite({ client: db }), { migrationsFolder: resolveMigrationsFolder("sqlite") });
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${query.text}`).all(...query.params) as { detail: string }[];
  db.close();
  return rows.map((r) => r.detail).join("\n");
}

/** PostgreSQL's plan for one statement (drizzle's `toSQL()` or `sqlToQuery` output), one line a row. */
export async function postgresPlan(pool: pg.Pool, statement: { sql: string; params: unknown[] }): Promise<string> {
  const explained = await pool.query<{ "QUERY PLAN": string }>(`explain ${statement.sql}`, statement.params);
  return explained.rows.map((r) => r["QUERY PLAN"]).join("\n");
}

/**
 * Runs `body` against a migrated PostgreSQL schema of its own (named from `prefix`) and a one-connection
 * pool whose search_path is that schema; drops the schema afterwards, whatever happened.
 */
export async function inPlanSchema(prefix: string, body: (storage: Storage, pool: pg.Pool) => Promise<void>): Promise<void> {
  const schema = freshSchemaName(prefix);
  const storage = createPostgresStorage({ connectionString: postgresUrl, schema });
  const pool = new pg.Pool({ connectionString: postgresUrl, max: 1, options: `-c search_path=${schema}` });
  try {
    await storage.migrate();
    await body(storage, pool);
  } finally {
    await pool.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
    await pool.end();
    await storage.close();
  }
}
