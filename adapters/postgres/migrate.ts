import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type pg from "pg";
import { sendQuery } from "./send-query.js";

/** First key of casekit's advisory locks ("ck" in ASCII); the second is the schema's hash. */
const advisoryLockClass = 0x636b;

/** drizzle's bookkeeping table, kept beside casekit's tables rather than in a `drizzle` schema. */
const migrationsTable = "__drizzle_migrations";

/**
 * Applies the migrations in `migrationsFolder` to `schema` (or, without one, to the connection's
 * current schema) on `client`, whose search_path already names that schema.
 *
 * The whole run holds a session-level advisory lock keyed by the schema's name, so hosts that
 * start together queue on the lock and the ones that follow find nothing left to apply; other
 * schemas in the same database migrate independently. The lock is released at the end, or by the
 * server if the connection dies first.
 */
export async function migrateSchema(
  client: pg.PoolClient,
  db: NodePgDatabase,
  options: { schema: string | undefined; migrationsFolder: string },
): Promise<void> {
  const { schema, migrationsFolder } = options;
  const target = schema ?? (await sendQuery<{ schema: string | null }>(client, "select current_schema() as schema")).rows[0]?.schema;
  if (!target) throw new Error("casekit: no schema to migrate into; the connection's search_path names no existing schema");

  await sendQuery(client, "select pg_advisory_lock($1, hashtext($2))", [advisoryLockClass, target]);
  try {
    // Inside the lock: two concurrent CREATE SCHEMA IF NOT EXISTS can otherwise both try to
    // create it, and one fails. The name matched ^[a-z_][a-z0-9_]*$; quoting keeps keywords usable.
    if (schema !== undefined) await sendQuery(client, `create schema if not exists "${schema}"`);
    await migrate(db, { migrationsFolder, migrationsSchema: target, migrationsTable });
  } finally {
    await sendQuery(client, "select pg_advisory_unlock($1, hashtext($2))", [advisoryLockClass, target]);
  }
}
