/**
 * The SQLite migration that gives cases their stored record text (0017): SQLite cannot add a
 * STORED generated column, so it rebuilds the table while other tables' rows reference it. On a
 * database that already holds cases, tasks and observables of them, every case reads back as it
 * was, with its text; the references still hold and are enforced again afterwards; and
 * migrations that would leave a reference dangling are rolled back and stop the start.
 * PostgreSQL has no such column.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { Case } from "../../core/index.js";
import { createSqliteStorage, resolveMigrationsFolder } from "../../adapters/sqlite/index.js";
import { migrateFile, ForeignKeyViolation } from "../../adapters/sqlite/migrate-file.js";
import { insertRawRow, migrationScratch, upgradeSqlite } from "../helpers/migrations-before.js";
import { createFixtures } from "./fixtures.js";

const scratch = migrationScratch("cases-stored-record");
afterAll(() => scratch.remove());

/** A file migrated up to before 0017 (with its own copy of the migrations folder) holding one organization and one case. */
async function fileBefore(name: string) {
  const folder = scratch.migrationsBefore("sqlite", "0017_cases_stored_record");
  const path = join(scratch.dir, `${name}.sqlite`);
  const storage = createSqliteStorage({ path, migrationsFolder: folder });
  await storage.migrate();
  const f = createFixtures();
  const org = f.organization();
  const record = f.caseRecord(org.id);
  await storage.transaction(async (tx) => {
    await tx.organizations.insert(org);
    await tx.cases.insert(record);
  });
  await storage.close();
  return { path, folder, f, org, record };
}

describe("cases stored record migration: sqlite", () => {
  it("rebuilds cases with their text while tasks and observables reference them, and keeps every reference enforced", async () => {
    await upgradeSqlite(scratch, "0017_cases_stored_record", {
      async seed(before, raw) {
        const f = createFixtures();
        const org = f.organization();
        const cases: Case[] = [
          f.caseRecord(org.id),
          f.caseRecord(org.id, { title: `it's "quoted" \\ ünïcødé 🧪`, tags: [{ name: "a\"b" }], customFields: { score: 2 ** 53 - 1, note: null } }),
          f.caseRecord(org.id, { closedAt: "2026-03-04T05:06:07.089Z", organizations: ["org_elsewhere"] }),
        ];
        await before.transaction(async (tx) => {
          await tx.organizations.insert(org);
          for (const record of cases) await tx.cases.insert(record);
        });
        const at = f.at();
        const history = { created_at: at, updated_at: at, created_by: null, deleted_at: null, deleted_by: null, custom_fields: "{}" };
        await insertRawRow(raw, "sqlite", "tasks", { id: f.ids.next("task"), organization_id: org.id, case_id: cases[1]!.id, title: "Collect headers", description: null, status: "waiting", assignee_id: null, due_date: null, mandatory: false, tlp: 2, sort_order: 1, ...history });
        await insertRawRow(raw, "sqlite", "observables", { id: f.ids.next("obs"), organization_id: org.id, case_id: cases[2]!.id, alert_id: null, data_type: "ip", data: "192.0.2.1", tlp: 2, pap: 2, ioc: false, sighted: false, tags: "[]", message: null, ...history });
        return { org: org.id, cases };
      },
      async check(after, { org, cases }, raw) {
        for (const record of cases) expect(await after.read((tx) => tx.cases.findById(org, record.id))).toStrictEqual(record);
        expect(await after.read((tx) => tx.cases.list(org, { maxTlp: 4 }, { limit: 10 }))).toStrictEqual([...cases].reverse());
        expect(await raw("PRAGMA foreign_key_check")).toEqual([]);
        expect((await raw("SELECT count(*) AS n FROM tasks JOIN cases ON cases.id = tasks.case_id"))[0]).toEqual({ n: 1 });
        // The storage's connection enforces references again: a task of a case that does not exist is refused.
        await expect(after.transaction(async (tx) => tx.tasks.insert({ ...(await tx.tasks.list(org, { maxTlp: 4 }, { limit: 1 }))[0]!, id: "task_01jz0000000000000000000000", caseId: "case_01jz0000000000000000000000" }))).rejects.toThrow(/FOREIGN KEY/);
        const indexes = (await raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'cases' AND sql IS NOT NULL ORDER BY name")).map((r) => r.name);
        expect(indexes).toEqual(["cases_organization_id_assignee_id_idx", "cases_organization_id_idx", "cases_organization_id_number_unique", "cases_organization_id_severity_idx", "cases_organization_id_status_value_idx"]);
      },
    });
  });

  it("a migration that would leave a reference dangling is rolled back and stops the start, naming the tables", async () => {
    const { path, folder } = await fileBefore("dangling");
    // A later migration that drops what cases reference, as a careless rebuild would.
    writeFileSync(join(folder, "0017_drop_organizations.sql"), "DELETE FROM organizations;");
    const journalFile = join(folder, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { idx: number; when: number; tag: string }[] };
    const last = journal.entries.at(-1)!;
    journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1, tag: "0017_drop_organizations" });
    writeFileSync(journalFile, JSON.stringify(journal));
    const db = new Database(path);
    db.pragma("foreign_keys = ON");
    try {
      expect(() => migrateFile(db, folder)).toThrow(ForeignKeyViolation);
      // Rolled back whole: the organization is still there, and the migration still pending (and refused again).
      expect(db.prepare("SELECT count(*) AS n FROM organizations").get()).toEqual({ n: 1 });
      expect(() => migrateFile(db, folder)).toThrow(/organizations; none was applied|cases → organizations/);
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(db.inTransaction).toBe(false);
    } finally {
      db.close();
    }
  });

  it("a reference that dangled before the migrations (written with foreign keys off) does not stop them", async () => {
    const { path, f, org, record } = await fileBefore("dangling-before");
    const db = new Database(path);
    try {
      db.pragma("foreign_keys = OFF");
      const at = f.at();
      db.prepare("INSERT INTO tasks (id, organization_id, case_id, title, status, mandatory, tlp, sort_order, created_at, updated_at, custom_fields) VALUES (?, ?, ?, 'Orphan', 'waiting', 0, 2, 1, ?, ?, '{}')").run(f.ids.next("task"), org.id, "case_01jz0000000000000000000000", at, at);
      db.pragma("foreign_keys = ON");
      migrateFile(db, resolveMigrationsFolder("sqlite"));
      expect(db.prepare("SELECT record_json FROM cases").pluck().get()).toBe(JSON.stringify(record));
      expect(db.pragma("foreign_key_check")).toHaveLength(1);
    } finally {
      db.close();
    }
  });
});
