// Migration tests start from a database migrated only up to the migration under test: a copy of
// the shipped migrations folder whose journal stops before it.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { resolveMigrationsFolder as postgresMigrations } from "../../adapters/postgres/index.js";
import { resolveMigrationsFolder as sqliteMigrations } from "../../adapters/sqlite/index.js";

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
