import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { RateLimitStore, Storage } from "../core/index.js";
import { isPostgresUrl } from "./config.js";

/**
 * Opens the storage a database setting names. Adapters load lazily, so a PostgreSQL deployment
 * never loads better-sqlite3 and a SQLite one never loads pg.
 */
export async function openStorage(database: string, options: { sqliteWalLimitBytes?: number; sqliteParsedRecordChars?: number; schema?: string } = {}): Promise<Storage> {
  if (isPostgresUrl(database)) {
    const { createPostgresStorage } = await withDriver("pg", () => import("../adapters/postgres/index.js"));
    return createPostgresStorage({ connectionString: database, ...(options.schema ? { schema: options.schema } : {}) });
  }
  const { createSqliteStorage } = await withDriver("better-sqlite3", () => import("../adapters/sqlite/index.js"));
  // The adapter creates a new file private to its owner (0600); its folders are created here, 0700.
  if (database !== ":memory:") mkdirSync(dirname(resolve(database)), { recursive: true, mode: 0o700 });
  return createSqliteStorage({
    path: database,
    ...(options.sqliteWalLimitBytes === undefined ? {} : { walLimitBytes: options.sqliteWalLimitBytes }),
    ...(options.sqliteParsedRecordChars === undefined ? {} : { parsedRecordChars: options.sqliteParsedRecordChars }),
  });
}

/**
 * The rate-limit store the settings name: this process's memory, or the shared PostgreSQL table
 * (so several hosts spend one budget per key). Null means memory: the core's default.
 */
export async function openRateLimitStore(database: string, store: "memory" | "postgres", schema?: string): Promise<(RateLimitStore & { close(): Promise<void> }) | null> {
  if (store === "memory") return null;
  if (!isPostgresUrl(database)) throw new Error("CASEKIT_RATE_LIMIT_STORE=postgres needs a postgres:// database");
  const { createPostgresRateLimitStore } = await withDriver("pg", () => import("../adapters/postgres/index.js"));
  return createPostgresRateLimitStore({ connectionString: database, max: 4, ...(schema ? { schema } : {}) });
}

/**
 * The database drivers are optional peer dependencies (an embedder on PostgreSQL never builds
 * better-sqlite3): name the missing one instead of surfacing a bare module-resolution error.
 */
async function withDriver<T>(driver: "pg" | "better-sqlite3", load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(`'${driver}'`)) {
      throw new Error(`this database needs the ${driver} package: npm install ${driver}`, { cause: error });
    }
    throw error;
  }
}
