/**
 * The migration that adds lifecycles and status history (SQLite 0008, PostgreSQL 0009), on a
 * database that already holds cases, alerts and tasks: each record gets one history entry, from
 * nothing to its status at its creation, by its creator, with its built-in category, and sorting
 * first among the record's entries. The database is first migrated with a copy of the shipped
 * migrations that stops before this one. PostgreSQL: skipped with a printed reason outside CI when
 * no server answers (as postgres.test.ts).
 */
import { insertTaskRow, migrationScratch, upgradePostgres, upgradeSqlite } from "../helpers/migrations-before.js";
import { afterAll, describe, expect, it } from "vitest";
import type { Storage } from "../../core/index.js";
import type { RawSql } from "../helpers/migrations-before.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { alertRecord } from "./alert-record.js";
import { createFixtures } from "./fixtures.js";
import { taskRecord } from "./task-record.js";

const scratch = migrationScratch("history-migration");
afterAll(() => scratch.remove());


/** A resolved case, a closed alert and an in-progress task, as the tables held them before history. */
async function seed(storage: Storage, raw: RawSql, dialect: "sqlite" | "postgres") {
  const f = createFixtures();
  const org = f.organization();
  const user = f.user(org.id, { role: "admin", tlpClearance: 4 });
  const record = f.caseRecord(org.id, { statusValue: "resolved", createdBy: user.id });
  const alert = alertRecord(f.ids.next("alert"), org.id, f.at(), { statusValue: "closed", createdBy: null });
  const task = taskRecord(f.ids.next("task"), org.id, record.id, f.at(), { status: "in_progress", createdBy: user.id });
  await storage.transaction(async (tx) => {
    await tx.organizations.insert(org);
    await tx.users.insert(user);
    await tx.cases.insert(record);
    await tx.alerts.insert(alert);
  });
  await insertTaskRow(raw, dialect, task);
  return { org, user, record, alert, task };
}

async function expectBackfill(storage: Storage, seeded: Awaited<ReturnType<typeof seed>>): Promise<void> {
  const { org, record, alert, task } = seeded;
  const read = (entity: "case" | "alert" | "task", id: string) => storage.read((tx) => tx.statusHistory.listByRecord(org.id, entity, id, { limit: 10 }));
  const entry = (entity: string, r: { id: string; createdAt: string; createdBy: string | null }, to: string, toCategory: string) => ({
    id: `sth_${r.id.slice(r.id.indexOf("_") + 1)}`,
    organizationId: org.id,
    entity,
    recordId: r.id,
    from: null,
    to,
    fromCategory: null,
    toCategory,
    actorUserId: r.createdBy,
    actorKeyId: null,
    at: r.createdAt,
    reason: null,
  });
  expect(await read("case", record.id)).toEqual([entry("case", record, "resolved", "resolved")]);
  expect(await read("alert", alert.id)).toEqual([entry("alert", alert, "closed", "closed")]);
  expect(await read("task", task.id)).toEqual([entry("task", task, "in_progress", "in_progress")]);
}

describe("status history migration: sqlite", () => {
  it("writes one history entry per existing case, alert and task", async () => {
    await upgradeSqlite(scratch, "0008_lifecycles", { seed: (before, raw) => seed(before, raw, "sqlite"), check: (after, seeded) => expectBackfill(after, seeded) });
  });
});

const run = await postgresShouldRun("status history migration");

describe.skipIf(!run)("status history migration: postgres", () => {
  it("writes one history entry per existing case, alert and task", async () => {
    await upgradePostgres(scratch, "0009_lifecycles", { seed: (before, raw) => seed(before, raw, "postgres"), check: (after, seeded) => expectBackfill(after, seeded) });
  }, 60_000);
});
