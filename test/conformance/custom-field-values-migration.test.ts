/**
 * The migration that brings in custom field values (SQLite 0009, PostgreSQL 0010), on a database
 * that already holds cases and alerts with custom fields: it indexes their values (the backfill),
 * so `cf.<key>` filters find records written before it. The database is first migrated with a
 * copy of the shipped migrations that stops before this one. PostgreSQL: CASEKIT_TEST_POSTGRES_URL,
 * skipped with a printed reason outside CI when no server answers (as postgres.test.ts).
 */
import { migrationScratch, upgradePostgres, upgradeSqlite } from "../helpers/migrations-before.js";
import { afterAll, describe, expect, it } from "vitest";
import type { Storage } from "../../core/index.js";
import { alertRecord } from "./alert-record.js";
import { caseRecord } from "./case-record.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";

const scratch = migrationScratch("cf-migration");
afterAll(() => scratch.remove());


const values = { impact: "high", vectors: ["email", "web"], score: 7, urgent: true, nested: { a: 1 } };

/** One case and one alert, written with no custom fields (the old schema's repositories index nothing then); the values are set in SQL. */
async function seed(storage: Storage, setValues: (table: string, id: string) => Promise<void>) {
  const f = createFixtures();
  const org = f.organization();
  const at = "2026-01-01T00:00:00.000Z";
  const record = caseRecord(f.ids.next("case"), org.id, 1, at);
  const alert = alertRecord(f.ids.next("alert"), org.id, at);
  await storage.transaction(async (tx) => {
    await tx.organizations.insert(org);
    await tx.cases.insert(record);
    await tx.alerts.insert(alert);
  });
  await setValues("cases", record.id);
  await setValues("alerts", alert.id);
  return { organizationId: org.id, caseId: record.id, alertId: alert.id };
}

async function expectFound(storage: Storage, seeded: { organizationId: string; caseId: string; alertId: string }) {
  const cases = (customField: { key: string; value: string }[]) => storage.read((tx) => tx.cases.list(seeded.organizationId, { maxTlp: 4, customField }, { limit: 10 }));
  expect((await cases([{ key: "impact", value: "high" }])).map((c) => c.id)).toEqual([seeded.caseId]);
  expect((await cases([{ key: "vectors", value: "web" }, { key: "score", value: "7" }, { key: "urgent", value: "true" }])).map((c) => c.id)).toEqual([seeded.caseId]);
  expect(await cases([{ key: "impact", value: "low" }])).toEqual([]);
  const alerts = await storage.read((tx) => tx.alerts.list(seeded.organizationId, { maxTlp: 4, customField: [{ key: "vectors", value: "email" }] }, { limit: 10 }));
  expect(alerts.map((a) => a.id)).toEqual([seeded.alertId]);
}

describe("custom_field_values migration: sqlite", () => {
  it("indexes the values of the cases and alerts a database held before it", async () => {
    await upgradeSqlite(scratch, "0009_custom_fields", {
      seed: (before, raw) => seed(before, async (table, id) => void (await raw(`UPDATE ${table} SET custom_fields = ? WHERE id = ?`, [JSON.stringify(values), id]))),
      check: (after, seeded) => expectFound(after, seeded),
    });
  });
});

const run = await postgresShouldRun("custom_field_values migration");

describe.skipIf(!run)("custom_field_values migration: postgres", () => {
  it("indexes the values of the cases and alerts a database held before it", async () => {
    await upgradePostgres(scratch, "0010_custom_fields", {
      seed: (before, raw) => seed(before, async (table, id) => void (await raw(`UPDATE ${table} SET custom_fields = $1::jsonb WHERE id = $2`, [JSON.stringify(values), id]))),
      check: (after, seeded) => expectFound(after, seeded),
    });
  }, 60_000);
});
