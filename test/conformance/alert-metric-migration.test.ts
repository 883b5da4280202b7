/**
 * The migration that brings in alerts by source's counters (SQLite 0004, PostgreSQL 0005), on a
 * database that already holds alerts: it counts them (the backfill), and its triggers exist once
 * every migration has run (drizzle-kit knows nothing of triggers, so a later migration that
 * rebuilds `alerts` could drop them silently). The database is first migrated with a copy of the
 * shipped migrations that stops before this one. PostgreSQL: CASEKIT_TEST_POSTGRES_URL, skipped
 * with a printed reason outside CI when no server answers (as postgres.test.ts).
 */
import { migrationScratch, upgradePostgres, upgradeSqlite } from "../helpers/migrations-before.js";
import { afterAll, describe, expect, it } from "vitest";
import type { Alert, Storage } from "../../core/index.js";
import { alertRecord } from "./alert-record.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";

const scratch = migrationScratch("metric-migration");
afterAll(() => scratch.remove());

const triggers = ["alert_source_counts_after_delete", "alert_source_counts_after_insert", "alert_source_counts_after_update"];


/** Alerts of two organizations over a few hours, some soft-deleted. */
async function seedAlerts(storage: Storage): Promise<{ orgIds: string[]; alerts: Alert[] }> {
  const f = createFixtures();
  const orgs = [f.organization(), f.organization()];
  const alerts: Alert[] = [];
  for (let i = 0; i < 60; i++) {
    const createdAt = new Date(Date.parse("2026-01-01T00:00:00.000Z") + i * 7 * 60_000).toISOString();
    alerts.push(
      alertRecord(f.ids.next("alert"), orgs[i % 2]!.id, createdAt, {
        title: `Alert ${i}`,
        tlp: i % 5,
        source: ["edr", "siem", "waf"][i % 3]!,
        statusValue: (["new", "acknowledged", "closed"] as const)[i % 3]!,
        deletedAt: i % 7 === 0 ? createdAt : null,
      }),
    );
  }
  await storage.transaction(async (tx) => {
    for (const org of orgs) await tx.organizations.insert(org);
    for (const alert of alerts) await tx.alerts.insert(alert);
  });
  return { orgIds: orgs.map((o) => o.id), alerts };
}

/** What the metric must say for the seeded alerts, counted plainly. */
function expected(alerts: Alert[], organizationId: string, from?: string, to?: string) {
  const counts = new Map<string, number>();
  for (const a of alerts) {
    if (a.organizationId !== organizationId || a.deletedAt !== null) continue;
    if ((from !== undefined && a.createdAt < from) || (to !== undefined && a.createdAt >= to)) continue;
    counts.set(a.source, (counts.get(a.source) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([source, count]) => ({ source, count }));
}

/** Every organization's metric, unbounded and over a range off the hour, against the plain count. */
async function expectCounted(storage: Storage, seeded: { orgIds: string[]; alerts: Alert[] }): Promise<void> {
  const from = "2026-01-01T01:10:00.000Z";
  const to = "2026-01-01T05:00:00.000Z";
  for (const organizationId of seeded.orgIds) {
    expect(await storage.read((tx) => tx.alerts.countBySource(organizationId, { maxTlp: 4 }))).toEqual(expected(seeded.alerts, organizationId));
    expect(await storage.read((tx) => tx.alerts.countBySource(organizationId, { maxTlp: 4, from, to }))).toEqual(expected(seeded.alerts, organizationId, from, to));
  }
}

describe("alert_source_counts migration: sqlite", () => {
  it("counts the alerts a database held before it, and leaves its triggers in place", async () => {
    await upgradeSqlite(scratch, "0004_alert_source_counts", {
      seed: (before) => seedAlerts(before),
      async check(after, seeded, raw) {
        await expectCounted(after, seeded);
        const names = await raw("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'alerts' ORDER BY name");
        const [counters] = await raw("SELECT sum(count) AS n FROM alert_source_counts");
        expect(names.map((r) => r.name)).toEqual(triggers);
        expect(Number(counters!.n)).toBe(seeded.alerts.filter((a) => a.deletedAt === null).length);
      },
    });
  });
});

const run = await postgresShouldRun("alert_source_counts migration");

describe.skipIf(!run)("alert_source_counts migration: postgres", () => {
  it("counts the alerts a database held before it, and leaves its triggers in place", async () => {
    await upgradePostgres(scratch, "0005_alert_source_counts", {
      seed: (before) => seedAlerts(before),
      async check(after, seeded, raw) {
        await expectCounted(after, seeded);
        const names = await raw("select tgname from pg_trigger where tgrelid = 'alerts'::regclass and not tgisinternal order by tgname");
        const [counters] = await raw("select sum(count) as n from alert_source_counts");
        expect(names.map((r) => r.tgname)).toEqual(triggers);
        expect(Number(counters!.n)).toBe(seeded.alerts.filter((a) => a.deletedAt === null).length);
      },
    });
  }, 60_000);
});
