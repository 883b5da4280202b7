import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Storage } from "../core/index.js";
import { isPostgresUrl } from "./config.js";

/**
 * Opens the storage a database setting names. Adapters load lazily, so a PostgreSQL deployment
 * never loads better-sqlite3 and a SQLite one never loads pg.
 */
export async function openStorage(database: string): Promise<Storage> {
  if (isPostgresUrl(database)) {
    const { createPostgresStorage } = await import("../adapters/postgres/index.js");
    return createPostgresStorage({ connectionString: database });
  }
  const { createSqliteStorage } = await import("../adapters/sqlite/index.js");
  if (database !== ":memory:") mkdirSync(dirname(resolve(database)), { recursive: true });
  return createSqliteStorage({ path: database });
}
