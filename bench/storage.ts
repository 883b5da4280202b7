/**
 * The storage layer on both databases: the requests whose cost is mostly storage, through the h3
 * app in-process, on a SQLite file and on PostgreSQL (a fresh schema), each as a ratio against a
 * bare h3 JSON endpoint measured in the same run. Used to compare two versions of the storage
 * code (run this file in each checkout, alternately): the request mix only uses the v1 API, so it
 * runs unchanged on any version that serves it.
 *
 *   npm run bench -- storage                      (both databases)
 *   BENCH_DB=sqlite npm run bench -- storage      (or postgres)
 *   BENCH_CASES=2000 npm run bench -- storage     (a smaller load)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { H3 } from "h3";
import pg from "pg";
import type { Storage } from "../core/index.js";
import { createCaseKit } from "../core/index.js";
import { createPostgresStorage } from "../adapters/postgres/index.js";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import { createCaseKitApp } from "../server/index.js";
import { measure, report } from "./measure.js";

const cases = Number(process.env.BENCH_CASES ?? 5_000);
const databases = (process.env.BENCH_DB ?? "sqlite,postgres").split(",");
const postgresUrl = process.env.CASEKIT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const keyHashSecret = "bench-key-hash-secret-0123456789abcdef";

async function run(label: string, open: () => Storage, cleanup: () => Promise<void>): Promise<void> {
  const setup = open();
  await setup.migrate();
  const init = await createCaseKit({ storage: setup, config: { keyHashSecret } }).setup.initOrganization({ organizationName: "Bench SOC", email: "bench@example.test" });
  await setup.close();

  const storage = open();
  const kit = createCaseKit({
    storage,
    config: { keyHashSecret },
    // The unlimited init key is metered at figures this loop never reaches: the limiter runs.
    rateLimits: { deployment: { unlimited: { perMinute: 1e9, perHour: 1e9, burst: 1e9 } } },
  });
  const app = createCaseKitApp(kit);
  const bare = new H3().get("/ping", () => ({ status: "ok" }));
  const base = "http://bench.test/api/v1";
  const auth = { authorization: `Bearer ${init.apiKey}` };
  const json = { ...auth, "content-type": "application/json" };
  const call = (path: string, request: RequestInit = {}) => app.fetch(new Request(`${base}${path}`, { headers: auth, ...request }));
  const post = async (path: string, body: unknown) => {
    const response = await call(path, { method: "POST", headers: json, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };

  // Load through the API, so every version stores what it would store for real requests.
  const loadStarted = performance.now();
  const caseIds: string[] = [];
  for (let i = 0; i < cases; i++) {
    const created = await post("/cases", { title: `Case ${i}`, severity: (i % 4) + 1, tlp: i % 5 === 4 ? 3 : 1, tags: [{ name: i % 2 ? "phishing" : "malware" }] });
    caseIds.push(created.id);
    if (i % 5 === 0) await post(`/cases/${created.id}/tasks`, { title: `Task ${i}` });
    await post("/alerts", { title: `Alert ${i}`, severity: 2, tlp: 1, source: "bench", sourceRef: `load-${i}` });
  }
  console.log(`\n${label}: loaded ${cases} cases, ${cases / 5} tasks and ${cases} alerts through the API in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);

  let created = 0;
  const someCase = () => caseIds[created++ % caseIds.length]!;
  const figures = await measure(
    [
      { name: "bare h3 JSON endpoint", run: async () => bare.fetch(new Request("http://bench.test/ping")) },
      { name: "GET /health (key lookup)", run: async () => call("/health") },
      { name: "POST /cases", run: async () => call("/cases", { method: "POST", headers: json, body: JSON.stringify({ title: `New ${created++}`, severity: 2 }) }) },
      { name: "GET /cases/{id}", run: async () => call(`/cases/${someCase()}`) },
      { name: "PATCH /cases/{id}", run: async () => call(`/cases/${someCase()}`, { method: "PATCH", headers: json, body: JSON.stringify({ severity: (created % 4) + 1 }) }) },
      { name: "GET /cases?limit=50", run: async () => call("/cases?limit=50") },
      { name: "GET /cases?tag=phishing&limit=50", run: async () => call("/cases?tag=phishing&limit=50") },
      { name: "POST /alerts", run: async () => call("/alerts", { method: "POST", headers: json, body: JSON.stringify({ title: "New", severity: 2, source: "bench", sourceRef: `new-${created++}` }) }) },
      { name: "GET /alerts?limit=50", run: async () => call("/alerts?limit=50") },
      { name: "GET /tasks?limit=50", run: async () => call("/tasks?limit=50") },
    ],
    { rounds: 5, requests: 500, concurrency: 8 },
  );
  report(`${label} (in-process, ${cases} cases)`, figures, "bare h3 JSON endpoint");

  const bulkStarted = performance.now();
  const bulk = await call("/bulk/tasks", { method: "POST", headers: json, body: JSON.stringify({ options: { selectAll: true }, fields: { status: "in_progress" } }) });
  console.log(`  selectAll bulk task update: ${bulk.status} in ${((performance.now() - bulkStarted) / 1000).toFixed(2)} s`);
  await storage.close();
  await cleanup();
}

if (databases.includes("sqlite")) {
  const dir = mkdtempSync(join(tmpdir(), "casekit-bench-"));
  const path = join(dir, "bench.db");
  await run("SQLite file", () => createSqliteStorage({ path }), async () => rmSync(dir, { recursive: true, force: true }));
}
if (databases.includes("postgres")) {
  const schema = `casekit_bench_${randomBytes(4).toString("hex")}`;
  await run(
    "PostgreSQL",
    () => createPostgresStorage({ connectionString: postgresUrl, schema }),
    async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  );
}
