/**
 * The checks every declared resource gets for free (declared-suite.ts), for every `Resource` the
 * modules of adapters/resources/ export — found there, never listed, so a resource is checked the
 * moment it is declared — on SQLite in memory and on PostgreSQL in a fresh schema, both migrated
 * by the real migrations.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { expect, it } from "vitest";
import { sqliteDialect, sqliteExecutor } from "../../adapters/sqlite/dialect.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { Statements } from "../../adapters/sqlite/statements.js";
import { postgresDialect, postgresExecutor } from "../../adapters/postgres/dialect.js";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";
import { declaredResourcesIn } from "./declared-discovery.js";
import type { DeclaredConnection } from "./declared-suite.js";
import { describeDeclaredResources } from "./declared-suite.js";

const folder = fileURLToPath(new URL("../../adapters/resources/", import.meta.url));
const resources = declaredResourcesIn(await Promise.all(readdirSync(folder).filter((f) => f.endsWith(".ts")).map((f) => import(`${folder}${f}`) as Promise<Record<string, unknown>>)));

it("finds the declared resources, each table once", () => {
  expect(resources.length).toBeGreaterThan(0);
  expect(new Set(resources.map((r) => r.table)).size).toBe(resources.length);
});

async function sqlite(): Promise<DeclaredConnection> {
  const db = new Database(":memory:");
  const storage = createSqliteStorage({ database: db });
  await storage.migrate();
  await storage.close(); // leaves the caller's connection open
  // Generated records reference parents that do not exist, and the append-only guards and
  // counter triggers are rules beside the declared SQL: off for this connection, as
  // session_replication_role = replica turns them off on PostgreSQL.
  db.pragma("foreign_keys = OFF");
  for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string }[]) db.exec(`DROP TRIGGER "${name}"`);
  return { dialect: sqliteDialect, executor: sqliteExecutor(new Statements(db)), exec: async (sql) => void db.exec(sql), close: async () => void db.close() };
}

async function postgres(): Promise<DeclaredConnection> {
  const schema = freshSchemaName("casekit_declared");
  const storage = createPostgresStorage({ connectionString: postgresUrl, schema });
  await storage.migrate();
  await storage.close();
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`set search_path = "${schema}"`);
  // Replica sessions fire no triggers, and foreign keys are triggers in PostgreSQL: generated
  // records need no parents, and the append-only guards and counters stay out of the way.
  await client.query("set session_replication_role = replica");
  return {
    dialect: postgresDialect,
    executor: postgresExecutor(client),
    exec: async (sql) => void (await client.query(sql)),
    close: async () => {
      await client.query(`drop schema "${schema}" cascade`);
      await client.end();
    },
  };
}

describeDeclaredResources("sqlite (memory)", sqlite, resources);
if (await postgresShouldRun("declared resources")) describeDeclaredResources("postgres", postgres, resources);
