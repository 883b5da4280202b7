/**
 * The migration that gives tasks and observables their customFields (SQLite 0014, PostgreSQL
 * 0015), on a database that already holds a task and an observable: both read back with `{}`, and
 * values written afterwards are indexed for `cf.<key>` filters like any others. The rows are seeded
 * in SQL, as the tables were (today's repositories write the new column).
 */
import { insertRawRow, migrationScratch, upgradePostgres, upgradeSqlite } from "../helpers/migrations-before.js";
import type { RawSql } from "../helpers/migrations-before.js";
import { afterAll, describe, expect, it } from "vitest";
import type { Storage } from "../../core/index.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";

const scratch = migrationScratch("record-cf-migration");
afterAll(() => scratch.remove());

async function seed(storage: Storage, raw: RawSql, dialect: "sqlite" | "postgres") {
  const f = createFixtures();
  const org = f.organization();
  const record = f.caseRecord(org.id);
  await storage.transaction(async (tx) => {
    await tx.organizations.insert(org);
    await tx.cases.insert(record);
  });
  const at = f.at();
  const taskId = f.ids.next("task");
  const observableId = f.ids.next("obs");
  const history = { created_at: at, updated_at: at, created_by: null, deleted_at: null, deleted_by: null };
  await insertRawRow(raw, dialect, "tasks", { id: taskId, organization_id: org.id, case_id: record.id, title: "Collect headers", description: null, status: "waiting", assignee_id: null, due_date: null, mandatory: false, tlp: 2, sort_order: 1, ...history });
  await insertRawRow(raw, dialect, "observables", { id: observableId, organization_id: org.id, case_id: record.id, alert_id: null, data_type: "ip", data: "192.0.2.1", tlp: 2, pap: 2, ioc: false, sighted: false, tags: "[]", message: null, ...history });
  return { organizationId: org.id, taskId, observableId };
}

async function expectCarried(storage: Storage, seeded: Awaited<ReturnType<typeof seed>>) {
  const { organizationId, taskId, observableId } = seeded;
  const task = await storage.read((tx) => tx.tasks.findById(organizationId, taskId));
  const observable = await storage.read((tx) => tx.observables.findById(organizationId, observableId));
  expect(task?.customFields).toEqual({});
  expect(observable?.customFields).toEqual({});
  await storage.transaction(async (tx) => {
    await tx.tasks.update({ ...task!, customFields: { effort: "s" } });
    await tx.observables.update({ ...observable!, customFields: { verdict: "malicious" } });
  });
  const customField = (key: string, value: string) => [{ key, value }];
  expect((await storage.read((tx) => tx.tasks.list(organizationId, { maxTlp: 4, customField: customField("effort", "s") }, { limit: 10 }))).map((t) => t.id)).toEqual([taskId]);
  expect((await storage.read((tx) => tx.observables.list(organizationId, { maxTlp: 4, customField: customField("verdict", "malicious") }, { limit: 10 }))).map((o) => o.id)).toEqual([observableId]);
}

describe("record custom fields migration: sqlite", () => {
  it("gives the tasks and observables a database held before it empty customFields, then indexes new values", async () => {
    await upgradeSqlite(scratch, "0014_record_custom_fields", { seed: (before, raw) => seed(before, raw, "sqlite"), check: (after, seeded) => expectCarried(after, seeded) });
  });
});

const run = await postgresShouldRun("record custom fields migration");

describe.skipIf(!run)("record custom fields migration: postgres", () => {
  it("gives the tasks and observables a database held before it empty customFields, then indexes new values", async () => {
    await upgradePostgres(scratch, "0015_record_custom_fields", { seed: (before, raw) => seed(before, raw, "postgres"), check: (after, seeded) => expectCarried(after, seeded) });
  }, 60_000);
});
