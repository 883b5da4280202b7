/**
 * The host's metrics on a real PostgreSQL server (server/metrics.ts): the pool's connections and
 * waiting units, and the backlog gauges read from the database, with no SQLite figure. Same
 * server and CI rule as postgres.test.ts: with CI=true an unreachable server fails the run;
 * elsewhere the file is skipped, saying why.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { createHostMetrics } from "../../server/index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";

const run = await postgresShouldRun("postgres metrics");
const schema = freshSchemaName("casekit_metrics");

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.skipIf(!run)("metrics on PostgreSQL", () => {
  const storage = createPostgresStorage({ connectionString: postgresUrl, schema, max: 2 });
  afterAll(async () => {
    await storage.close();
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  });

  it("report the pool's use and the backlog, and no SQLite figure", async () => {
    await storage.migrate();
    const clock = new ManualClock("2026-03-01T12:00:00.000Z");
    const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } });
    const init = await kit.setup.initOrganization({ organizationName: "Pool SOC", email: "admin@pool.test" });
    const admin = await kit.authenticateKey(init.apiKey);
    // A subscription, so the case's event waits for the dispatcher (without one it is written fanned out).
    await kit.webhooks.create(admin, { name: "SIEM", url: "https://hooks.example.com/pool", events: ["case.created"] });
    await kit.cases.create(admin, { title: "Waiting for a dispatcher", severity: 2 });
    clock.advance(12_000);
    const { registry } = createHostMetrics(kit);

    // Two units hold both connections; a third waits for one while the scrape is taken.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const units = [1, 2, 3].map(() => storage.read(() => held));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The pool's gauges are read when the scrape starts; its backlog read waits for a connection like the third unit.
    const scraping = registry.metrics();
    release();
    const busy = await scraping;
    await Promise.all(units);
    expect(sample(busy, 'casekit_postgres_pool_connections{state="total"}')).toBe(2);
    expect(sample(busy, 'casekit_postgres_pool_connections{state="idle"}')).toBe(0);
    // The third unit (the scrape's own backlog read asks for a connection only after the pool is read).
    expect(sample(busy, "casekit_postgres_pool_waiting_requests")).toBe(1);

    const idle = await registry.metrics();
    expect(sample(idle, 'casekit_postgres_pool_connections{state="idle"}')).toBe(2);
    expect(sample(idle, "casekit_postgres_pool_waiting_requests")).toBe(0);
    // The case's event waits for a dispatcher: 12 s old on the kit's clock.
    expect(sample(idle, "casekit_outbox_lag_seconds")).toBe(12);
    expect(sample(idle, "casekit_webhook_pending_deliveries")).toBe(0);
    expect(idle).not.toContain("casekit_sqlite");
  });
});
