/**
 * Custom field filters at scale (issue 16): BENCH_CF_RECORDS cases and as many alerts, tasks
 * (one per case) and observables (one per case) (default 100 000 each), each with custom field values, written through the storage's own repositories
 * (so the value index is what the code writes), on SQLite and, when BENCH_POSTGRES_URL (or the
 * tests' CASEKIT_TEST_POSTGRES_URL) answers, on PostgreSQL in a schema of its own. Then, one
 * request at a time, latency percentiles of:
 *
 * - `GET /cases?cf.<key>=<value>&limit=50` through the h3 app in-process, for a value held by
 *   one case, by 1 % and by 25 % of them, and two filters at once;
 * - the same filter at the storage port (no HTTP), to tell the query from the host;
 * - a selectAll bulk's page read (`alerts.list` with the cf filter, 250 rows, as core/bulk/run.ts
 *   pages it, and 1 000) for a value held by 1 % of the alerts, and the whole `POST /bulk/alerts/assign`;
 * - `GET /tasks?cf.…` and `GET /observables?cf.…` for a value held by 1 % and by 25 %, and a task
 *   selectAll page (`tasks.list`, 250 and 1 000 rows) for the 1 % value.
 *
 *   npm run bench -- custom-fields           (BENCH_CF_RECORDS=20000 for a quick run;
 *                                             BENCH_CF_ONLY=sqlite or postgres for one database;
 *                                             BENCH_CF_KEEP=1 keeps the PostgreSQL schema)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Alert, Case, Observable, Storage, Task } from "../core/index.js";
import { createCaseKit } from "../core/index.js";
import { selectPage } from "../core/bulk/run.js";
import { createPostgresStorage } from "../adapters/postgres/index.js";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import { createCaseKitApp } from "../server/index.js";

const total = Number(process.env.BENCH_CF_RECORDS ?? 100_000);
const samples = Number(process.env.BENCH_CF_SAMPLES ?? 400);
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? process.env.CASEKIT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const keyHashSecret = "bench-key-hash-secret-0123456789abcdef";
const impacts = (i: number) => (i % 100 === 0 ? "critical" : i % 4 === 1 ? "high" : i % 4 === 2 ? "medium" : "low");
const vectorSets = [["email"], ["email", "web"], ["usb"], ["web"]];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function timed(name: string, count: number, run: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < Math.min(50, count); i++) await run(); // warm-up
  const durations: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run();
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  console.log(`| ${name} | ${percentile(durations, 50).toFixed(2)} | ${percentile(durations, 99).toFixed(2)} | ${durations.at(-1)!.toFixed(2)} |`);
}

async function run(label: string, storage: Storage, cleanup: () => Promise<void>): Promise<void> {
  await storage.migrate();
  const kit = createCaseKit({ storage, config: { keyHashSecret } });
  const init = await kit.setup.initOrganization({ organizationName: "Bench SOC", email: "bench@example.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  const org = init.organization.id;
  await kit.customFields.create(admin, { key: "impact", label: "Impact", scopes: ["case", "alert", "task", "observable"], type: "enum", filterable: true, options: ["low", "medium", "high", "critical"].map((id) => ({ id, label: id })) });
  await kit.customFields.create(admin, { key: "vectors", label: "Vectors", scopes: ["case"], type: "multi_enum", filterable: true, options: ["email", "web", "usb"].map((id) => ({ id, label: id })) });
  await kit.customFields.create(admin, { key: "ticket", label: "Ticket", scopes: ["case"], type: "string", filterable: true });

  const loadStarted = performance.now();
  const seedCase = await kit.cases.create(admin, { title: "Seed", severity: 2 });
  const seedAlert = await kit.alerts.create(admin, { title: "Seed", severity: 2, source: "bench" });
  const seedTask = await kit.tasks.create(admin, seedCase.id, { title: "Seed", customFields: { impact: "low" } });
  const seedObservable = await kit.observables.create(admin, { kind: "case", id: seedCase.id }, { dataType: "ip", data: "198.51.100.1", customFields: { impact: "low" } });
  const chunk = 2_000;
  for (let from = 0; from < total; from += chunk) {
    await storage.transaction(async (tx) => {
      const number = await tx.organizations.nextCaseNumber(org);
      for (let i = from; i < Math.min(total, from + chunk); i++) {
        const record: Case = { ...seedCase, id: kit.deps.ids.next("case"), number: number + 1 + i, title: `Case ${i}`, customFields: { impact: impacts(i), vectors: vectorSets[i % 4]!, ticket: `T-${i}` } };
        await tx.cases.insert(record);
        const alert: Alert = { ...(seedAlert as Alert), id: kit.deps.ids.next("alert"), sourceRef: `ref-${i}`, title: `Alert ${i}`, customFields: { impact: impacts(i) } };
        await tx.alerts.insert(alert);
        const task: Task = { ...seedTask, id: kit.deps.ids.next("task"), caseId: record.id, title: `Task ${i}`, customFields: { impact: impacts(i) } };
        await tx.tasks.insert(task);
        const { deduplicated: _, ...observableSeed } = seedObservable;
        const observable: Observable = { ...observableSeed, id: kit.deps.ids.next("obs"), caseId: record.id, data: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, customFields: { impact: impacts(i) } };
        await tx.observables.insert(observable);
      }
    });
  }
  console.log(`\n### ${label}: ${total.toLocaleString("en")} cases, alerts, tasks and observables loaded through the repositories in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s\n`);
  if (label.startsWith("PostgreSQL")) await (storage as unknown as { analyze?: () => Promise<void> }).analyze?.();

  const app = createCaseKitApp(kit);
  const headers = { Authorization: `Bearer ${init.apiKey}` };
  const get = async (query: string, path = "cases") => {
    const response = await app.fetch(new Request(`http://bench.local/api/v1/${path}?${query}`, { headers }));
    if (!response.ok) throw new Error(`${query}: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { data: unknown[] };
    return body.data.length;
  };
  console.log("| scenario | p50 ms | p99 ms | max ms |\n|---|---|---|---|");
  let n = 0;
  await timed("GET /cases?cf.ticket=<one case>&limit=50", samples, () => get(`cf.ticket=T-${(n += 7919) % total}&limit=50`));
  await timed("GET /cases?cf.impact=critical&limit=50 (1 %)", samples, () => get("cf.impact=critical&limit=50"));
  await timed("GET /cases?cf.impact=high&limit=50 (25 %)", samples, () => get("cf.impact=high&limit=50"));
  await timed("GET /cases?cf.impact=critical&cf.vectors=web&limit=50", samples, () => get("cf.impact=critical&cf.vectors=web&limit=50"));
  await timed("GET /cases?limit=50 (no filter, for reference)", samples, () => get("limit=50"));
  // The machine's own floor: one row by primary key through the same port, what no filter can beat.
  await timed("port: organizations.findById, one row (reference)", samples, () => storage.read((tx) => tx.organizations.findById(org)));
  const list = (customField: { key: string; value: string }[], limit: number) => storage.read((tx) => tx.cases.list(org, { maxTlp: 4, customField }, { limit }));
  await timed("port: cases.list cf.ticket=<one case>, 51 rows", samples, () => list([{ key: "ticket", value: `T-${(n += 7919) % total}` }], 51));
  await timed("port: cases.list cf.impact=critical, 51 rows", samples, () => list([{ key: "impact", value: "critical" }], 51));
  await timed("port: cases.list cf.impact=high, 51 rows", samples, () => list([{ key: "impact", value: "high" }], 51));
  await timed(`selectAll page: alerts.list cf.impact=critical, ${selectPage} rows (core/bulk/run.ts's page)`, samples, () => storage.read((tx) => tx.alerts.list(org, { maxTlp: 4, customField: [{ key: "impact", value: "critical" }] }, { limit: selectPage })));
  await timed("alerts.list cf.impact=critical, 1 000 rows (a page four times that)", Math.min(samples, 100), () => storage.read((tx) => tx.alerts.list(org, { maxTlp: 4, customField: [{ key: "impact", value: "critical" }] }, { limit: 1000 })));
  await timed("GET /tasks?cf.impact=critical&limit=50 (1 %)", samples, () => get("cf.impact=critical&limit=50", "tasks"));
  await timed("GET /tasks?cf.impact=high&limit=50 (25 %)", samples, () => get("cf.impact=high&limit=50", "tasks"));
  await timed("GET /tasks?limit=50 (no filter, for reference)", samples, () => get("limit=50", "tasks"));
  await timed(`selectAll page: tasks.list cf.impact=critical, ${selectPage} rows (core/bulk/run.ts's page)`, samples, () => storage.read((tx) => tx.tasks.list(org, { maxTlp: 4, customField: [{ key: "impact", value: "critical" }] }, { limit: selectPage })));
  await timed("tasks.list cf.impact=critical, 1 000 rows (a page four times that)", Math.min(samples, 100), () => storage.read((tx) => tx.tasks.list(org, { maxTlp: 4, customField: [{ key: "impact", value: "critical" }] }, { limit: 1000 })));
  await timed("GET /observables?cf.impact=critical&limit=50 (1 %)", samples, () => get("cf.impact=critical&limit=50", "observables"));
  await timed("GET /observables?cf.impact=high&limit=50 (25 %)", samples, () => get("cf.impact=high&limit=50", "observables"));
  await timed("GET /observables?limit=50 (no filter, for reference)", samples, () => get("limit=50", "observables"));
  const user = init.user.id;
  await timed("POST /bulk/alerts/assign selectAll cf.impact=critical (whole request)", 5, async () => {
    const response = await app.fetch(new Request("http://bench.local/api/v1/bulk/alerts/assign", { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify({ assigneeId: user, options: { selectAll: true, filters: { customFields: { impact: "critical" } } } }) }));
    if (!response.ok) throw new Error(`bulk: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  });
  await cleanup();
}

const only = process.env.BENCH_CF_ONLY; // "sqlite" or "postgres"
if (only !== "postgres") {
  const dir = mkdtempSync(join(tmpdir(), "casekit-bench-cf-"));
  const sqlite = createSqliteStorage({ path: join(dir, "bench.db") });
  await run("SQLite", sqlite, async () => {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

const admin = new pg.Pool({ connectionString: postgresUrl, max: 1 });
const reachable = await admin.query("select 1").then(
  () => true,
  (error: unknown) => (console.log(`\nPostgreSQL skipped: ${String(error)}`), false),
);
if (reachable && only !== "sqlite") {
  const schema = `casekit_bench_cf_${process.pid}`;
  const postgres = createPostgresStorage({ connectionString: postgresUrl, schema });
  // Vacuumed as well as analyzed, as autovacuum does a table after this many inserts (its insert
  // threshold): until then the value index cannot answer alone (no visibility map). Then a
  // checkpoint, so the load's dirty pages are not written out during the measurements: the first
  // minutes after a bulk load are not what a deployment in use sees.
  const tables = ["cases", "alerts", "tasks", "observables", "custom_field_values"].map((table) => `"${schema}".${table}`).join(", ");
  const analyzed = Object.assign(postgres, { analyze: async () => void (await admin.query(`vacuum analyze ${tables}`), await admin.query("checkpoint")) });
  await run("PostgreSQL", analyzed, async () => {
    await postgres.close();
    // BENCH_CF_KEEP=1 leaves the loaded schema for EXPLAIN ANALYZE by hand (drop it after).
    if (process.env.BENCH_CF_KEEP === "1") console.log(`\nKept schema "${schema}".`);
    else await admin.query(`drop schema if exists "${schema}" cascade`);
  });
}
await admin.end();
