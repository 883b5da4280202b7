/**
 * Custom field filters at scale (issue 16): BENCH_CF_RECORDS cases and as many alerts, tasks
 * (one per case) and observables (one per case) (default 100 000 each), each with custom field values, written through the storage's own repositories
 * (so the value index is what the code writes), on SQLite and, when BENCH_POSTGRES_URL (or the
 * tests' CASEKIT_TEST_POSTGRES_URL) answers, on PostgreSQL in a schema of its own. Then, in a
 * fresh process (bench/custom-fields/measure.ts), one request at a time, latency percentiles of:
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
 *                                             BENCH_CF_KEEP=1 keeps the databases and prints
 *                                             the command that measures them again)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Alert, Case, Observable, Storage, Task } from "../core/index.js";
import { createCaseKit } from "../core/index.js";
import { createPostgresStorage } from "../adapters/postgres/index.js";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import type { MeasureTarget, Where } from "./custom-fields/measure.js";

const here = dirname(fileURLToPath(import.meta.url));

const total = Number(process.env.BENCH_CF_RECORDS ?? 100_000);
const samples = Number(process.env.BENCH_CF_SAMPLES ?? 400);
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? process.env.CASEKIT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const keyHashSecret = "bench-key-hash-secret-0123456789abcdef";
const impacts = (i: number) => (i % 100 === 0 ? "critical" : i % 4 === 1 ? "high" : i % 4 === 2 ? "medium" : "low");
const vectorSets = [["email"], ["email", "web"], ["usb"], ["web"]];

/**
 * Measures in a fresh process (bench/custom-fields/measure.ts), as a host serving these requests
 * would: this one's heap carries the 400 000 records it just wrote, and the young generation it
 * grew for them made every scavenge of the measurements cost 5–10 ms.
 */
async function measureInOwnProcess(target: MeasureTarget): Promise<void> {
  const env = { ...process.env, BENCH_CF_TARGET: JSON.stringify(target) };
  const script = join(here, "custom-fields", "measure.ts");
  if (process.env.BENCH_CF_KEEP === "1") console.log(`To measure again: BENCH_CF_TARGET='${env.BENCH_CF_TARGET}' node --import tsx ${script}\n`);
  const child = spawn(process.execPath, [...process.execArgv, script], { env, stdio: ["ignore", "inherit", "inherit"] });
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`the measuring process ${signal === null ? `exited with ${code}` : `was killed by ${signal}`}`);
}

async function run(label: string, storage: Storage, where: Where, cleanup: () => Promise<void>): Promise<void> {
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
  await storage.close();

  try {
    await measureInOwnProcess({ ...where, records: total, samples, keyHashSecret, apiKey: init.apiKey, org, user: init.user.id });
  } finally {
    await cleanup();
  }
}

const only = process.env.BENCH_CF_ONLY; // "sqlite" or "postgres"
if (only !== "postgres") {
  const dir = mkdtempSync(join(tmpdir(), "casekit-bench-cf-"));
  const path = join(dir, "bench.db");
  const sqlite = createSqliteStorage({ path });
  await run("SQLite", sqlite, { database: "sqlite", path }, async () => {
    if (process.env.BENCH_CF_KEEP === "1") console.log(`\nKept ${path}.`);
    else rmSync(dir, { recursive: true, force: true });
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
  await run("PostgreSQL", analyzed, { database: "postgres", url: postgresUrl, schema }, async () => {
    // BENCH_CF_KEEP=1 leaves the loaded schema for EXPLAIN ANALYZE by hand (drop it after).
    if (process.env.BENCH_CF_KEEP === "1") console.log(`\nKept schema "${schema}".`);
    else await admin.query(`drop schema if exists "${schema}" cascade`);
  });
}
await admin.end();
