/**
 * Moves a deployment from its SQLite file to PostgreSQL (`casekit copy`): every row of every
 * table, ids, case numbers, TLP audit chain and key hashes included, so the PostgreSQL hosts
 * carry on where the SQLite host stopped. What is copied, in which order and with which
 * conversions comes from the two drizzle schemas (table-plan.ts).
 */
import Database from "better-sqlite3";
import { asc, count, getTableColumns, gt } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/node-postgres";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type { PgTable } from "drizzle-orm/pg-core";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import pg from "pg";
import { sendQuery } from "../postgres/send-query.js";
import { createPostgresStorage } from "../postgres/storage.js";
import { resolveMigrationsFolder } from "../shared/migrations-folder.js";
import { lastAppliedMigration } from "../sqlite/pending-migrations.js";
import type { CopiedTable, CopyPlan } from "./table-plan.js";
import { copyPlan } from "./table-plan.js";

export interface CopyOptions {
  /**
   * The SQLite database file. Nothing is written to it, but it is locked for the copy: a copy
   * while another connection has the file open (a running host) is refused (see openSource).
   */
  sqlitePath: string;
  /** `postgres://…` of the target database. */
  connectionString: string;
  /** The target schema (created and migrated if missing); by default the connection's current schema. */
  schema?: string;
  /** Rows read and inserted per batch (default 500). */
  batchSize?: number;
  /** Called after each batch, and once for each empty table. Throwing aborts the copy (nothing is kept). */
  onProgress?: (progress: CopyProgress) => void | Promise<void>;
}

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

export interface CopyResult {
  /** Rows per table, in copy order; derived tables (rebuilt by PostgreSQL) last. */
  tables: { table: string; rows: number; derived: boolean }[];
}

/** The copy's preconditions are not met; nothing was written. */
export class CopyRefusedError extends Error {
  override name = "CopyRefusedError";
}

const defaultBatchSize = 500;
/** PostgreSQL takes at most 65 535 parameters per statement; one per column per row. */
const maxParameters = 65_535;

/**
 * Copies every casekit table from the SQLite file into an empty, migrated PostgreSQL schema, in
 * one PostgreSQL transaction: on any failure (including a throwing `onProgress`) the target is
 * left as empty as it was. The target is migrated first; the source must be at the latest
 * migration this version ships. Row counts are compared per table before the commit.
 */
export async function copySqliteToPostgres(options: CopyOptions): Promise<CopyResult> {
  const batchSize = options.batchSize ?? defaultBatchSize;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError("batchSize must be a positive whole number");
  const plan = copyPlan();

  const source = openSource(options.sqlitePath);
  try {
    // Migrating is idempotent and serialised across hosts; it makes sure every table exists.
    const storage = createPostgresStorage({ connectionString: options.connectionString, ...(options.schema ? { schema: options.schema } : {}) });
    try {
      await storage.migrate();
    } finally {
      await storage.close();
    }

    const client = new pg.Client({ connectionString: options.connectionString });
    await client.connect();
    try {
      if (options.schema) await sendQuery(client, "select set_config('search_path', $1, false)", [`"${options.schema}"`]);
      const target = drizzlePostgres({ client });
      // The source's exclusive transaction (openSource): every table is read from one state.
      await sendQuery(client, "begin");
      try {
        const result = await copyTables(plan, source.db, target, client, batchSize, options.onProgress);
        await sendQuery(client, "commit");
        return result;
      } catch (error) {
        await sendQuery(client, "rollback").catch(() => {});
        throw error;
      }
    } finally {
      await client.end().catch(() => {});
    }
  } finally {
    source.sqlite.exec("rollback");
    source.sqlite.close();
  }
}

type SourceDb = BetterSQLite3Database;

/**
 * Opens the source and locks it against every other connection for the whole copy: SQLite's
 * exclusive locking mode plus BEGIN EXCLUSIVE takes an exclusive lock on the database file, which
 * fails at once (SQLITE_BUSY) while any other connection has the file open, since every
 * connection to a WAL database holds a shared lock on the file as long as it is open. So a running
 * `casekit serve` or `worker` (or any embedder) is detected whether or not it is writing at this
 * moment, and none can start writing until the copy ends. Nothing is written (the transaction is
 * rolled back), but the lock needs write access to the file and its folder.
 */
function openSource(path: string): { sqlite: Database.Database; db: SourceDb } {
  let sqlite: Database.Database;
  try {
    sqlite = new Database(path, { fileMustExist: true, timeout: 0 });
  } catch (error) {
    throw new CopyRefusedError(`cannot open the SQLite database ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    sqlite.pragma("locking_mode = exclusive");
    try {
      sqlite.exec("begin exclusive");
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "SQLITE_BUSY") {
        throw new CopyRefusedError(
          `${path} is open in another process (a running casekit serve or worker?): stop it first (SIGTERM or Ctrl-C lets it finish requests in flight), then run the copy again; what it wrote after the copy would stay behind`,
        );
      }
      if (code === "SQLITE_READONLY" || code === "SQLITE_CANTOPEN") {
        throw new CopyRefusedError(`cannot lock ${path} against writers for the copy: it needs write access to the file and its folder (copy a backup you own instead)`);
      }
      throw error;
    }
    checkSourceMigrated(sqlite, path);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return { sqlite, db: drizzleSqlite({ client: sqlite }) };
}

/**
 * The source must have exactly the migrations this version ships (drizzle records the last one's
 * folder timestamp): an older file lacks columns, a newer one has columns PostgreSQL would lose.
 */
function checkSourceMigrated(sqlite: Database.Database, path: string): void {
  const latest = Math.max(...readMigrationFiles({ migrationsFolder: resolveMigrationsFolder("sqlite") }).map((m) => m.folderMillis));
  const applied = lastAppliedMigration(sqlite);
  if (applied === undefined) throw new CopyRefusedError(`${path} is not a migrated casekit database: run \`casekit migrate --database ${path}\` first`);
  if (applied < latest) throw new CopyRefusedError(`${path} is not at the latest migration: run \`casekit migrate --database ${path}\` with this version first`);
  if (applied > latest) throw new CopyRefusedError(`${path} was migrated by a newer casekit: copy it with that version`);
}

async function copyTables(
  plan: CopyPlan,
  source: SourceDb,
  target: NodePgDatabase,
  client: pg.Client,
  batchSize: number,
  onProgress: CopyOptions["onProgress"],
): Promise<CopyResult> {
  const everyTable = [...plan.copied, ...plan.derived];
  // No host may write while the copy runs, and the emptiness checked here must hold until the commit.
  // A host writing to the target makes the lock wait: give up after a while rather than hang.
  await sendQuery(client, "set local lock_timeout = '10s'");
  await sendQuery(client, `lock table ${everyTable.map((t) => `"${t.name}"`).join(", ")} in exclusive mode`);
  const occupied: string[] = [];
  for (const table of everyTable) {
    if ((await sendQuery(client, `select exists (select 1 from "${table.name}") as found`)).rows[0]?.found) occupied.push(table.name);
  }
  if (occupied.length > 0) {
    throw new CopyRefusedError(`the PostgreSQL target is not empty (${occupied.join(", ")} hold rows): a copy never merges into existing data; use a new database or schema`);
  }

  const tables: CopyResult["tables"] = [];
  for (const table of plan.copied) {
    const total = countRows(source, table.source);
    const copied = await copyTable(table, source, target, batchSize, total, onProgress);
    tables.push({ table: table.name, rows: copied, derived: false });
  }
  for (const table of plan.derived) tables.push({ table: table.name, rows: countRows(source, table.source), derived: true });

  // The check that nothing was skipped or doubled, derived tables included.
  const mismatches: string[] = [];
  for (const [index, table] of everyTable.entries()) {
    const expected = tables[index]!.rows;
    const [row] = await target.select({ rows: count() }).from(table.target);
    if (row?.rows !== expected) mismatches.push(`${table.name}: ${expected} in SQLite, ${row?.rows ?? 0} in PostgreSQL`);
  }
  if (mismatches.length > 0) throw new Error(`the copy does not match its source (${mismatches.join("; ")}); nothing was kept`);
  return { tables };
}

function countRows(source: SourceDb, table: SQLiteTable): number {
  return source.select({ rows: count() }).from(table).get()?.rows ?? 0;
}

async function copyTable(
  table: CopiedTable,
  source: SourceDb,
  target: NodePgDatabase,
  batchSize: number,
  total: number,
  onProgress: CopyOptions["onProgress"],
): Promise<number> {
  const key = getTableColumns(table.source)[table.key]!;
  const insertRows = Math.max(1, Math.min(batchSize, Math.floor(maxParameters / table.columns.length)));
  let copied = 0;
  let after: unknown;
  if (total === 0) await onProgress?.({ table: table.name, copied, total });
  for (;;) {
    const rows = source
      .select()
      .from(table.source)
      .where(after === undefined ? undefined : gt(key, after))
      .orderBy(asc(key))
      .limit(batchSize)
      .all() as Record<string, unknown>[];
    if (rows.length === 0) break;
    const converted = rows.map((row) => toTargetRow(table, row));
    for (let start = 0; start < converted.length; start += insertRows) {
      await target.insert(table.target as PgTable).values(converted.slice(start, start + insertRows) as never);
    }
    copied += rows.length;
    after = rows.at(-1)![table.key];
    await onProgress?.({ table: table.name, copied, total });
    if (rows.length < batchSize) break;
  }
  return copied;
}

/**
 * One SQLite row (decoded by its drizzle columns: JSON parsed, 0/1 as booleans, timestamps as ISO
 * text) as the PostgreSQL columns take it. JSON goes back to text, so that the `jsonb` column
 * stores exactly what SQLite held; ISO timestamps are parsed by PostgreSQL itself.
 */
function toTargetRow(table: CopiedTable, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of table.columns) {
    const value = row[column.key];
    out[column.key] = column.conversion === "json" && value !== null && value !== undefined ? JSON.stringify(value) : value;
  }
  return out;
}
