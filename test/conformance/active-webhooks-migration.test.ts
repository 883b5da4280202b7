/**
 * The migration that counts each organization's active webhooks (SQLite and PostgreSQL 0018), on
 * a database that already holds subscriptions: the count starts at what the table holds (active
 * ones only, per organization), and the triggers keep it from there. The database is first
 * migrated with a copy of the shipped migrations that stops before this one. PostgreSQL:
 * skipped with a printed reason outside CI when no server answers (as postgres.test.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Storage } from "../../core/index.js";
import { migrationScratch, upgradePostgres, upgradeSqlite } from "../helpers/migrations-before.js";
import type { RawSql, UpgradeSteps } from "../helpers/migrations-before.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";

const scratch = migrationScratch("active-webhooks-migration");
afterAll(() => scratch.remove());

interface Seeded {
  counts: Map<string, number>;
  busy: string;
}

/** Three organizations: two active and one disabled subscription, one disabled only, none. `mark` is the dialect's first parameter. */
const stepsFor = (mark: string): UpgradeSteps<Seeded> => ({
  async seed(before: Storage) {
    const f = createFixtures();
    const [busy, quiet, empty] = [f.organization(), f.organization(), f.organization()];
    await before.transaction(async (tx) => {
      for (const org of [busy, quiet, empty]) await tx.organizations.insert(org);
      await tx.webhooks.insert(f.webhook(busy.id));
      await tx.webhooks.insert(f.webhook(busy.id));
      await tx.webhooks.insert(f.webhook(busy.id, { status: "disabled", disabledReason: "gone" }));
      await tx.webhooks.insert(f.webhook(quiet.id, { status: "disabled", disabledReason: "gone" }));
    });
    return { counts: new Map([[busy.id, 2], [quiet.id, 0], [empty.id, 0]]), busy: busy.id };
  },
  async check(after: Storage, { counts, busy }: Seeded, raw: RawSql) {
    const countOf = async (id: string) => Number((await raw(`SELECT active_webhooks FROM organizations WHERE id = ${mark}`, [id]))[0]!.active_webhooks);
    for (const [id, count] of counts) expect(await countOf(id), id).toBe(count);
    // The triggers run from here on.
    const f = createFixtures("2031-01-01T00:00:00.000Z");
    await after.transaction((tx) => tx.webhooks.insert(f.webhook(busy)));
    expect(await countOf(busy)).toBe(3);
  },
});

describe("active webhooks migration: sqlite", () => {
  it("counts each organization's active subscriptions, and the triggers count on", async () => {
    await upgradeSqlite(scratch, "0018_active_webhooks", stepsFor("?"));
  });
});

const run = await postgresShouldRun("active webhooks migration");

describe.skipIf(!run)("active webhooks migration: postgres", () => {
  it("counts each organization's active subscriptions, and the triggers count on", async () => {
    await upgradePostgres(scratch, "0018_active_webhooks", stepsFor("$1"));
  });
});
