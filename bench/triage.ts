/**
 * Triage at scale on SQLite: loads BENCH_ALERTS alerts (default 1 000 000), each with one
 * observable, into a database file, then measures through the h3 app in-process, as ratios
 * against a bare h3 JSON endpoint measured in the same run:
 *
 * - alert creation throughput (POST /alerts: auth, validation, rate limit, insert, audit, event);
 * - list latency: the first page and a page deep in the cursor chain (they must cost the same);
 * - observable lookup by value ("where else have we seen this IP?");
 * - alerts by source (GET /metrics/alerts/source): unbounded and on the hour it sums the per-hour
 *   counters; off the hour it also counts the partial hours at the edges from the alerts, here
 *   about 360 000 alerts an hour (one every 10 ms);
 * - a selectAll bulk assign over 100 000 alerts (one source holds exactly that many).
 *
 *   npm run bench -- triage            (BENCH_ALERTS=200000 npm run bench -- triage for a quick run)
 *   BENCH_ONLY=metric npm run bench -- triage     (load, then alerts by source only)
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { H3 } from "h3";
import { createCaseKit, createIdGenerator, ManualClock } from "../core/index.js";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import { createCaseKitApp } from "../server/index.js";
import { measure, report } from "./measure.js";

const total = Number(process.env.BENCH_ALERTS ?? 1_000_000);
const metricOnly = process.env.BENCH_ONLY === "metric";
const bulkSize = Math.min(100_000, Math.floor(total / 2));
const dir = mkdtempSync(join(tmpdir(), "casekit-bench-"));
const file = join(dir, "bench.db");

// 1. Schema, organization and key through the real code.
const setupStorage = createSqliteStorage({ path: file });
await setupStorage.migrate();
const keyHashSecret = "bench-key-hash-secret-0123456789abcdef";
const setupKit = createCaseKit({ storage: setupStorage, config: { keyHashSecret } });
const init = await setupKit.setup.initOrganization({ organizationName: "Bench SOC", email: "bench@example.test" });
await setupStorage.close();

// 2. Bulk load with plain prepared statements: what the API would write, minus a million requests.
const loadStarted = performance.now();
const raw = new Database(file);
raw.pragma("journal_mode = WAL");
raw.pragma("synchronous = OFF");
const clock = new ManualClock("2025-01-01T00:00:00.000Z");
const ids = createIdGenerator(clock);
const insertAlert = raw.prepare(
  `INSERT INTO alerts (id, organization_id, title, description, severity, tlp, pap, type_value, source, source_ref, status_value,
     assignee_id, tags, custom_fields, event_date, occurrences, last_seen_at, case_id, created_at, updated_at, created_by, deleted_at, deleted_by)
   VALUES (?, ?, ?, NULL, ?, ?, 2, 'phishing', ?, ?, 'new', NULL, ?, '{}', ?, 1, ?, NULL, ?, ?, ?, NULL, NULL)`,
);
const insertObservable = raw.prepare(
  `INSERT INTO observables (id, organization_id, case_id, alert_id, data_type, data, tlp, pap, ioc, sighted, tags, message,
     created_at, updated_at, created_by, deleted_at, deleted_by)
   VALUES (?, ?, NULL, ?, 'ip', ?, ?, 2, 0, 0, '[]', NULL, ?, ?, ?, NULL, NULL)`,
);
const sources = ["edr", "siem", "email-gateway", "ids", "cloudtrail", "waf", "dlp", "proxy", "av"];
let deepCursorId = "";
const load = raw.transaction((from: number, to: number) => {
  for (let i = from; i < to; i++) {
    clock.advance(10);
    const at = clock.now().toISOString();
    const id = ids.next("alert");
    if (i === Math.floor(total / 10)) deepCursorId = id; // 90 % of the way down the newest-first chain
    // The first `bulkSize` alerts share one source, so selectAll on it matches exactly that many.
    const source = i < bulkSize ? "bulk-target" : sources[i % sources.length]!;
    const tlp = i % 5 === 4 ? 3 : 1;
    insertAlert.run(id, init.organization.id, `Alert ${i}`, (i % 4) + 1, tlp, source, `ref-${i}`, '[{"name":"bench"}]', at, at, at, at, init.user.id);
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    insertObservable.run(ids.next("obs"), init.organization.id, id, ip, tlp, at, at, init.user.id);
  }
});
for (let from = 0; from < total; from += 50_000) load(from, Math.min(total, from + 50_000));
raw.pragma("wal_checkpoint(TRUNCATE)");
raw.exec("ANALYZE");
raw.close();
console.log(`Loaded ${total.toLocaleString("en")} alerts and as many observables in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);

// 3. Measure through the app.
const storage = createSqliteStorage({ path: file });
const kit = createCaseKit({
  storage,
  // The selectAll bulk assign below touches `bulkSize` alerts, above the default per-request ceiling.
  config: { keyHashSecret, bulkMaxRows: bulkSize },
  // The unlimited init key is metered at figures this loop never reaches: the limiter runs.
  rateLimits: { deployment: { unlimited: { perMinute: 1e9, perHour: 1e9, burst: 1e9 } } },
});
const app = createCaseKitApp(kit);
const bare = new H3().get("/ping", () => ({ status: "ok" }));
const base = "http://bench.test/api/v1";
const auth = { authorization: `Bearer ${init.apiKey}` };
const json = { ...auth, "content-type": "application/json" };
// A cursor is the last id of the page before (core/pagination.ts).
const deepCursor = deepCursorId;
let created = 0;

const call = (path: string, init: RequestInit = {}) => app.fetch(new Request(`${base}${path}`, { headers: auth, ...init }));
const scenarios = [
  { name: "bare h3 JSON endpoint", run: async () => bare.fetch(new Request("http://bench.test/ping")) },
  {
    name: "POST /alerts (create)",
    // The loaded mix of markings (one in five AMBER+STRICT, whose reads the TLP audit log records),
    // so the first page holds what a deep page holds and the two compare fairly.
    run: async () => {
      const n = created++;
      const body = { title: `New ${n}`, severity: 2, tlp: n % 5 === 4 ? 3 : 1, source: "bench", sourceRef: `new-${n}` };
      return call("/alerts", { method: "POST", headers: json, body: JSON.stringify(body) });
    },
  },
  { name: "GET /alerts (first page, 50)", run: async () => call("/alerts?limit=50") },
  { name: "GET /alerts (deep cursor page, 50)", run: async () => call(`/alerts?limit=50&cursor=${deepCursor}`) },
  { name: "GET /observables?data=<ip> (lookup by value)", run: async () => call(`/observables?data=10.1.2.3`) },
];
// Alerts by source: counters only (unbounded, and a range on the hour), then a range whose two
// partial hours (30 minutes each, about 180 000 alerts each here) are counted from the alerts.
const metrics = [
  { name: "GET /metrics/alerts/source", run: async () => call("/metrics/alerts/source") },
  { name: "GET /metrics/alerts/source (on the hour)", run: async () => call("/metrics/alerts/source?from=2025-01-01T01:00:00Z&to=2025-01-01T02:00:00Z") },
];
const offHour = { name: "GET /metrics/alerts/source (edges of 30 min)", run: async () => call("/metrics/alerts/source?from=2025-01-01T00:30:00Z&to=2025-01-01T02:30:00Z") };

if (!metricOnly) {
  const figures = await measure(scenarios, { rounds: 5, requests: 1_000, concurrency: 8 });
  report(`Triage on SQLite with ${total.toLocaleString("en")} alerts (in-process)`, figures, "bare h3 JSON endpoint");
}
const metricFigures = await measure([scenarios[0]!, ...metrics], { rounds: 5, requests: 1_000, concurrency: 8 });
report(`Alerts by source with ${total.toLocaleString("en")} alerts`, metricFigures, "bare h3 JSON endpoint");
const offHourFigures = await measure([scenarios[0]!, offHour], { rounds: 3, requests: 20, concurrency: 2 });
report("Alerts by source off the hour (fewer requests)", offHourFigures, "bare h3 JSON endpoint");

// Latency percentiles, one request at a time.
async function percentiles(name: string, run: () => Response | Promise<Response>, count = 500): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await run();
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${name}: ${response.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!.toFixed(2);
  console.log(`  ${name.padEnd(58)} p50 ${at(50).padStart(7)} ms   p99 ${at(99).padStart(7)} ms`);
}
console.log("\nLatency, one request at a time");
if (!metricOnly) for (const s of scenarios) if (s.name !== "POST /alerts (create)") await percentiles(s.name, s.run);
for (const m of metrics) await percentiles(m.name, m.run);
await percentiles(offHour.name, offHour.run, 20);

// selectAll bulk assign over `bulkSize` alerts.
if (!metricOnly) {
  const bulkStarted = performance.now();
  const bulk = await call("/bulk/alerts/assign", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ assigneeId: init.user.id, options: { selectAll: true, filters: { source: ["bulk-target"] } } }),
  });
  const bulkSeconds = (performance.now() - bulkStarted) / 1000;
  const bulkBody = (await bulk.json()) as { matched?: number; assigned?: number };
  console.log(
    `\nselectAll bulk assign: ${bulk.status}, matched ${bulkBody.matched}, assigned ${bulkBody.assigned} in ${bulkSeconds.toFixed(2)} s ` +
      `(${Math.round((bulkBody.assigned ?? 0) / bulkSeconds).toLocaleString("en")} alerts/s, one transaction, an audit entry and an event each)`,
  );
}

await storage.close();
rmSync(dir, { recursive: true, force: true });
