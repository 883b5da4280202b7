// The families behind `GET /metrics` (server/metrics.ts, server/http-metrics.ts), in process:
// requests by route template and status with bounded labels, rate-limit refusals, webhook attempts
// by outcome, pending deliveries and the outbox lag read on scrape, and the endpoint's token.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeTransport } from "../../adapters/outbound/node-transport.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createCaseKit, ManualClock, parseWebhookAllowlist, tierLimits } from "../../core/index.js";
import { apiBasePath, createCaseKitApp, createHostMetrics } from "../../server/index.js";
import type { HostMetrics } from "../../server/index.js";
import { startWebhookWorker } from "../../server/worker.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { addKey, addUser, keyHashSecret } from "../helpers/kit.js";
import { startReceiver } from "../helpers/receiver.js";
import type { Receiver } from "../helpers/receiver.js";
import { bearer, inProcess } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, validCase } from "./world.js";
import type { World } from "./world.js";

const token = "metrics-token-0123456789abcdef";

/** An app of the world's kit with the host's metrics and the endpoint behind the token. */
async function measured(): Promise<{ w: World; metrics: HostMetrics; client: Transport; scrape: () => Promise<string> }> {
  const w = await makeWorld();
  const metrics = createHostMetrics(w.kit);
  const client = inProcess(createCaseKitApp(w.kit, { metrics: metrics.requests, metricsEndpoint: { registry: metrics.registry, token } }));
  const scrape = async () => {
    const answer = await client.send("GET", "/metrics", { headers: bearer(token) });
    expect(answer.status).toBe(200);
    return answer.text;
  };
  return { w, metrics, client, scrape };
}

/** The value of the sample `name{labels}` in Prometheus text (labels in the order prom-client writes them). */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

describe("request metrics", () => {
  it("count and time requests by method, route template and status, never by the raw path", async () => {
    const { w, client, scrape } = await measured();
    const created = await client.send("POST", `${apiBasePath}/cases`, { headers: bearer(w.adminKey), body: validCase });
    const id = (created.body as { id: string }).id;
    await client.send("GET", `${apiBasePath}/cases/${id}`, { headers: bearer(w.adminKey) });
    for (let i = 0; i < 5; i++) await client.send("GET", `${apiBasePath}/cases/case_${i}notthere`, { headers: bearer(w.adminKey) });
    for (let i = 0; i < 3; i++) await client.send("GET", `/no/such/path/${i}`);
    await client.send("GET", `${apiBasePath}/nothing-here`, { headers: bearer(w.adminKey) });
    await client.send("DELETE", "/livez");
    await client.send("BREW", "/livez");
    const text = await scrape();

    const count = (method: string, route: string, status: number) => sample(text, `casekit_http_requests_total{method="${method}",route="${route}",status="${status}"}`);
    expect(count("POST", "/api/v1/cases", 200)).toBe(1);
    expect(count("GET", "/api/v1/cases/{id}", 200)).toBe(1);
    expect(count("GET", "/api/v1/cases/{id}", 404)).toBe(5);
    expect(count("GET", "/**", 404)).toBe(3);
    expect(count("GET", "/api/v1/**", 404)).toBe(1);
    expect(count("DELETE", "/livez", 405)).toBe(1);
    expect(count("other", "/livez", 405)).toBe(1);
    expect(sample(text, `casekit_http_request_duration_seconds_count{method="GET",route="/api/v1/cases/{id}",status="404"}`)).toBe(5);
    expect(sample(text, `casekit_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/v1/cases/{id}",status="404"}`)).toBe(5);
    // No label holds a path, an id or a method as sent.
    expect(text).not.toMatch(/notthere|no\/such|nothing-here|BREW|case_[0-9a-z]{26}/);
  });

  it("count rate-limit refusals by the limit that refused and the caller's tier", async () => {
    const { w, client, scrape } = await measured();
    const owner = await addUser(w.kit, w.organizationId);
    const { secret } = await addKey(w.kit, owner, { tier: "basic" });
    for (let i = 0; i <= tierLimits.basic.burst; i++) await client.send("GET", `${apiBasePath}/health`, { headers: bearer(secret) });
    const text = await scrape();
    expect(sample(text, 'casekit_rate_limit_refusals_total{reason="minute_rate",tier="basic"}')).toBe(1);
    expect(sample(text, `casekit_http_requests_total{method="GET",route="/api/v1/health",status="429"}`)).toBe(1);
  });
});

/** A kit on in-memory SQLite whose webhooks may reach loopback receivers, with the host's metrics behind the token. */
async function webhookWorld() {
  const storage = createSqliteStorage({ path: ":memory:" });
  await storage.migrate();
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret, webhookAllowlist: "127.0.0.1" } });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  const metrics = createHostMetrics(kit);
  const client = inProcess(createCaseKitApp(kit, { metrics: metrics.requests, metricsEndpoint: { registry: metrics.registry, token } }));
  const scrape = async () => (await client.send("GET", "/metrics", { headers: bearer(token) })).text;
  return { kit, clock, admin, metrics, scrape };
}

describe("webhook and outbox metrics", () => {
  it("count attempts by outcome; pending deliveries and the outbox lag are read from the database on scrape", async () => {
    const w = await webhookWorld();
    const { metrics, scrape, admin } = w;
    const receiver = await startReceiver((_request, index) => ({ status: index === 0 ? 500 : 200 }));
    receivers.push(receiver);
    await w.kit.webhooks.create(admin, { name: "SIEM", url: receiver.url(), events: ["case.created"], maxRetries: 3, retryDelayMs: 1_000 });
    await w.kit.cases.create(admin, validCase);
    w.clock.advance(30_000);
    let text = await scrape();
    // The oldest undispatched event (the organization's set-up, the subscription, the case) is 30 s old.
    expect(sample(text, "casekit_outbox_lag_seconds")).toBe(30);
    expect(sample(text, "casekit_webhook_pending_deliveries")).toBe(0);

    const dispatcher = w.kit.createDispatcher({ transport: createNodeTransport({ allowlist: parseWebhookAllowlist("127.0.0.1") }), random: () => 0, onAttempt: metrics.webhookAttempt });
    await dispatcher.step();
    text = await scrape();
    expect(sample(text, "casekit_outbox_lag_seconds")).toBe(0);
    expect(sample(text, 'casekit_webhook_attempts_total{outcome="retry"}')).toBe(1);
    expect(sample(text, "casekit_webhook_pending_deliveries")).toBe(1);

    w.clock.advance(60_000);
    await dispatcher.step();
    text = await scrape();
    expect(sample(text, 'casekit_webhook_attempts_total{outcome="delivered"}')).toBe(1);
    expect(sample(text, 'casekit_webhook_attempts_total{outcome="failed"}')).toBe(0);
    expect(sample(text, "casekit_webhook_pending_deliveries")).toBe(0);
  });

  it("the host's webhook worker tells the metrics every attempt's outcome", async () => {
    const w = await webhookWorld();
    const { metrics, scrape, admin } = w;
    const receiver = await startReceiver(() => ({ status: 410 }));
    receivers.push(receiver);
    await w.kit.webhooks.create(admin, { name: "Gone", url: receiver.url(), events: ["case.created"] });
    await w.kit.cases.create(admin, validCase);
    const worker = startWebhookWorker(w.kit, { allowlist: "127.0.0.1", idleMs: 10, onAttempt: metrics.webhookAttempt });
    try {
      await expect.poll(async () => sample(await scrape(), 'casekit_webhook_attempts_total{outcome="gone"}'), { timeout: 5_000 }).toBe(1);
    } finally {
      await worker.stop();
    }
  });
});

describe("the /metrics endpoint in process", () => {
  it("asks for the token; a request without a peer address is not local", async () => {
    const { client } = await measured();
    expect((await client.send("GET", "/metrics")).status).toBe(401);
    const local = await measured();
    const open = inProcess(createCaseKitApp(local.w.kit, { metricsEndpoint: { registry: local.metrics.registry, token: undefined } }));
    expect((await open.send("GET", "/metrics")).status).toBe(404);
  });
});

describe("storage metrics", () => {
  it("one scrape reads the storage's figures once, whatever the number of its gauges", async () => {
    const dir = mkdtempSync(join(tmpdir(), "casekit-metrics-"));
    const storage = createSqliteStorage({ path: join(dir, "casekit.db") });
    try {
      await storage.migrate();
      const stats = storage.stats!.bind(storage);
      let reads = 0;
      storage.stats = () => (reads++, stats());
      const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock: new ManualClock("2026-03-01T12:00:00.000Z"), config: { keyHashSecret } });
      const metrics = createHostMetrics(kit);
      const registered = reads;
      for (let scrape = 1; scrape <= 2; scrape++) {
        const text = await metrics.registry.metrics();
        expect(text).toContain("casekit_sqlite_wal_bytes");
        expect(text).toContain("casekit_sqlite_parsed_record_chars");
        expect(reads - registered).toBe(scrape);
        // The next scrape reads fresh figures.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
