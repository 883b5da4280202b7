// Migration tests start from a database migrated only up to the migration under test (a copy of
// the shipped migrations folder whose journal stops before it), seed it, migrate it the rest of
// the way and check what the migration did.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { expect } from "vitest";
import type { Storage, Task } from "../../core/index.js";
import { createPostgresStorage, resolveMigrationsFolder as postgresMigrations } from "../../adapters/postgres/index.js";
import { createSqliteStorage, resolveMigrationsFolder as sqliteMigrations } from "../../adapters/sqlite/index.js";
import { freshSchemaName, postgresUrl } from "./postgres.js";

export interface MigrationScratch {
  /** A folder for this file's databases and migration copies. */
  dir: string;
  /** A copy of the shipped migrations of `dialect` without `tag` and what follows it. */
  migrationsBefore(dialect: "sqlite" | "postgres", tag: string): string;
  remove(): void;
}

export function migrationScratch(label: string): MigrationScratch {
  const dir = mkdtempSync(join(tmpdir(), `casekit-${label}-`));
  return {
    dir,
    migrationsBefore(dialect, tag) {
      const copy = join(dir, `${dialect}-before-${tag}`);
      cpSync(dialect === "sqlite" ? sqliteMigrations("sqlite") : postgresMigrations("postgres"), copy, { recursive: true });
      const journalFile = join(copy, "meta", "_journal.json");
      const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
      const at = journal.entries.findIndex((e) => e.tag === tag);
      expect(at, `${tag} is in the ${dialect} journal`).toBeGreaterThan(0);
      writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
      return copy;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** SQL straight on the database under test, for what the storage port cannot write or show. */
export type RawSql = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * Inserts one row as SQL on the database under test: for a table as it was before a migration
 * added columns today's repositories write. Values go as given (booleans as the dialect stores them).
 */
export async function insertRawRow(raw: RawSql, dialect: "sqlite" | "postgres", table: string, row: Record<string, unknown>): Promise<void> {
  const names = Object.keys(row);
  const marks = names.map((_, i) => (dialect === "sqlite" ? "?" : `$${i + 1}`));
  const values = Object.values(row).map((v) => (typeof v === "boolean" && dialect === "sqlite" ? Number(v) : v));
  await raw(`INSERT INTO ${table} (${names.join(", ")}) VALUES (${marks.join(", ")})`, values);
}

/** A task as the tasks table held it before tasks carried custom fields (SQLite 0014, PostgreSQL 0015), for seeds of earlier migrations. */
export async function insertTaskRow(raw: RawSql, dialect: "sqlite" | "postgres", task: Task): Promise<void> {
  await insertRawRow(raw, dialect, "tasks", {
    id: task.id,
    organization_id: task.organizationId,
    case_id: task.caseId,
    title: task.title,
    description: task.description,
    status: task.status,
    assignee_id: task.assigneeId,
    due_date: task.dueDate,
    mandatory: task.mandatory,
    tlp: task.tlp,
    sort_order: task.order,
    created_at: task.createdAt,
    updated_at: task.updatedAt,
    created_by: task.createdBy,
    deleted_at: task.deletedAt,
    deleted_by: task.deletedBy,
  });
}

export interface UpgradeSteps<S> {
  /** Writes what the migration must carry, on the database as it was before the migration. */
  seed(before: Storage, raw: RawSql): Promise<S>;
  /** Checks the database once every migration ran. */
  check(after: Storage, seeded: S, raw: RawSql): Promise<void>;
}

/** A SQLite file migrated up to before `tag` and seeded, then reopened with every migration and checked. */
export async function upgradeSqlite<S>(scratch: MigrationScratch, tag: string, steps: UpgradeSteps<S>): Promise<void> {
  const path = join(scratch.dir, `${tag}.sqlite`);
  const raw: RawSql = async (sql, params = []) => {
    const db = new Database(path);
    try {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
      statement.run(...params);
      return [];
    } finally {
      db.close();
    }
  };
  const before = createSqliteStorage({ path, migrationsFolder: scratch.migrationsBefore("sqlite", tag) });
  let seeded: S;
  try {
    await before.migrate();
    seeded = await steps.seed(before, raw);
  } finally {
    await before.close();
  }
  const after = createSqliteStorage({ path });
  try {
    await after.migrate();
    await steps.check(after, seeded, raw);
  } finally {
    await after.close();
  }
}

/**
 * The same on a fresh PostgreSQL schema (dropped afterwards); `raw` runs on that schema
 * (search_path), so SQL names tables as on SQLite.
 */
export async function upgradePostgres<S>(scratch: MigrationScratch, tag: string, steps: UpgradeSteps<S>): Promise<void> {
  const schema = freshSchemaName("casekit_upgrade");
  const admin = new pg.Pool({ connectionString: postgresUrl, max: 1, options: `-c search_path="${schema}"` });
  const raw: RawSql = async (sql, params = []) => (await admin.query(sql, params)).rows as Record<string, unknown>[];
  const before = createPostgresStorage({ connectionString: postgresUrl, schema, migrationsFolder: scratch.migrationsBefore("postgres", tag) });
  const after = createPostgresStorage({ connectionString: postgresUrl, schema });
  try {
    await before.migrate();
    const seeded = await steps.seed(before, raw);
    await after.migrate();
    await steps.check(after, seeded, raw);
  } finally {
    await before.close();
    await after.close();
    await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
    await admin.end();
  }
}
