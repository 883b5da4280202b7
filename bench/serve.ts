/**
 * Issue 14's figures, out of process (`npm run bench -- serve`; BENCH_QUICK=1 for a short
 * development run; the other settings in bench/serve/settings.ts). Builds the package, starts
 * `casekit serve` processes from dist/ on fresh SQLite files and a bare h3 endpoint, drives them
 * with autocannon, and prints a markdown report (also written to the file BENCH_REPORT names, if
 * set). The run's temporary folder (databases, server logs) is removed unless BENCH_KEEP=1.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api } from "./serve/api.js";
import { bulkRounds } from "./serve/bulk.js";
import { postgresBulk } from "./serve/bulk-postgres.js";
import { servePostgres } from "./serve/postgres-serve.js";
import { captureCreates } from "./serve/floor/capture.js";
import type { Running } from "./serve/processes.js";
import { benchEnv, build, initOrganization, startScript, startServe } from "./serve/processes.js";
import { buildScripts } from "./serve/scripts.js";
import { markdown } from "./serve/report.js";
import type { RunResults } from "./serve/report.js";
import { createBody } from "./serve/requests.js";
import type { LoadScenario } from "./serve/rounds.js";
import { runRounds, settle } from "./serve/rounds.js";
import { names, selectedGroups } from "./serve/scenarios.js";
import { seedAlerts, seedCases, seedTasks } from "./serve/seed.js";
import { settings } from "./serve/settings.js";
import { sustainedCreates } from "./serve/wal.js";
import { webhookRounds } from "./serve/webhooks.js";

const log = (line: string) => console.log(line);
const want = selectedGroups(settings.only);
const dir = mkdtempSync(join(tmpdir(), "casekit-bench-serve-"));
const running: Running[] = [];
const keep = <T extends Running>(r: T): T => (running.push(r), r);
/** Databases the run created on the PostgreSQL server, dropped once their servers have stopped. */
const dropAtEnd: (() => Promise<void>)[] = [];
/** A group that fails (a request refused, a server that died) is reported; the others still run. */
const failures: { group: string; message: string }[] = [];
const attempt = async (group: string, work: () => Promise<void>) => {
  try {
    await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    failures.push({ group, message });
    log(`${group} failed: ${message}`);
  }
};

try {
  if (!settings.skipBuild) {
    log("building the package (dist/ is what casekit serve runs)…");
    build();
  }
  log("building the bench's own processes (bare h3, metering and header hosts, the floor's replay)…");
  await buildScripts();
  const scenarios: LoadScenario[] = [];
  const connections = new Map<string, number>();
  const add = (name: string, server: Running, path: string, key: string | undefined, extra: { method?: "POST"; body?: string; connections?: number; pairedWith?: string } = {}) => {
    const n = extra.connections ?? settings.connections;
    connections.set(name, n);
    scenarios.push({
      name,
      pid: server.pid,
      target: {
        url: server.origin + path,
        method: extra.method ?? "GET",
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(extra.body ? { "content-type": "application/json" } : {}) },
        ...(extra.body ? { body: extra.body } : {}),
        connections: n,
      },
      ...(extra.pairedWith ? { pairedWith: extra.pairedWith } : {}),
    });
  };

  const loadGroups = ["health", "health-postgres", "metering", "create", "list"].some((g) => want.has(g as never));
  if (loadGroups) add(names.bare, keep(await startScript("bare h3", "bare-h3", join(dir, "bare-h3.log"))), "/ping", undefined);

  if (want.has("health") || want.has("create")) {
    const database = join(dir, "fresh.db");
    const organization = initOrganization(database, "Fresh SOC");
    const serve = keep(await startServe("serve", database));
    if (want.has("health")) add(names.health, serve, "/api/v1/health", organization.apiKey);
    if (want.has("create")) add(names.create, serve, "/api/v1/cases", organization.apiKey, { method: "POST", body: createBody });
  }
  if (want.has("health-postgres")) {
    const { database, organization, serve } = await servePostgres(dir, "health-postgres");
    dropAtEnd.push(() => database.drop());
    add(names.healthPostgres, keep(serve), "/api/v1/health", organization.apiKey);
  }
  if (want.has("metering")) {
    const database = join(dir, "metering.db");
    const metered = initOrganization(database, "Metered SOC");
    const unmetered = initOrganization(database, "Unmetered SOC");
    const host = keep(await startScript("metering host", "metering-host", `${database}.log`, [database, unmetered.organizationId], benchEnv));
    add(names.metered, host, "/api/v1/health", metered.apiKey);
    add(names.unmetered, host, "/api/v1/health", unmetered.apiKey, { pairedWith: names.metered });
    const headerHost = keep(await startScript("header host", "header-host", join(dir, "header-host.log")));
    add(names.headersAdded, headerHost, "/limited", undefined);
    add(names.headersAbsent, headerHost, "/plain", undefined, { pairedWith: names.headersAdded });
  }

  let listServe: Running | undefined;
  let listOrganization: ReturnType<typeof initOrganization> | undefined;
  const listDatabase = join(dir, "lists.db");
  if (want.has("list") || want.has("bulk")) {
    listOrganization = initOrganization(listDatabase, "Busy SOC");
    // With BENCH_KEEP the seeded file can be measured again by hand: its key is beside it.
    writeFileSync(`${listDatabase}.organization.json`, JSON.stringify(listOrganization), { mode: 0o600 });
    listServe = keep(await startServe("serve (seeded)", listDatabase));
    const { origin } = listServe;
    const key = listOrganization.apiKey;
    const template = await api<{ id: string }>(origin, key, "POST", "/cases", JSON.parse(createBody));
    log(`seeding ${settings.cases} cases…`);
    seedCases(listDatabase, template.id, settings.cases - 1);
    if (want.has("bulk")) {
      const alert = await api<{ id: string }>(origin, key, "POST", "/alerts", { title: "Seeded alert", severity: 2, source: "bench" });
      const task = await api<{ id: string }>(origin, key, "POST", `/cases/${template.id}/tasks`, { title: "Seeded task" });
      log(`seeding ${settings.bulkRows} alerts and ${settings.bulkRows} tasks…`);
      seedAlerts(listDatabase, alert.id, settings.bulkRows - 1);
      seedTasks(listDatabase, task.id, settings.bulkRows - 1);
    }
    if (want.has("list")) {
      add(names.list, listServe, "/api/v1/cases?limit=50", key);
      add(names.list10, listServe, "/api/v1/cases?limit=50", key, { connections: 10 });
    }
  }

  const results: RunResults = { rounds: { load: new Map(), floor: { perCreate: [], batched: [] } }, connections, cases: settings.cases, bulkRows: settings.bulkRows };
  if (scenarios.length > 0) await attempt("load", async () => {
    const floor = want.has("create") ? { dir, capture: await captureCreates(dir, settings.floorCreates), batch: settings.floorBatch } : undefined;
    if (floor) log(`floor: captured ${floor.capture.calls.length} statements of ${floor.capture.creates} creates`);
    results.rounds = await runRounds(scenarios, floor, { rounds: settings.rounds, seconds: settings.seconds, log });
  });

  if (want.has("bulk") && listServe && listOrganization) await attempt("bulk", async () => {
    const targets = { origin: listServe!.origin, key: listOrganization!.apiKey, userId: listOrganization!.userId, rows: settings.bulkRows, probeMs: settings.probeMs };
    const serve = listServe!;
    results.bulk = await bulkRounds(targets, settings.rounds, "SQLite", log, () => settle(serve.pid));
  });
  for (const r of running.splice(0)) await r.stop();

  if (want.has("bulk-postgres")) await attempt("bulk-postgres", async () => {
    results.bulkPostgres = await postgresBulk(dir, settings.bulkRows, settings.rounds, settings.probeMs, log);
  });

  if (want.has("webhooks")) await attempt("webhooks", async () => {
    const samples = await webhookRounds(join(dir, "webhooks.db"), settings.webhookEvents, settings.webhookSubscribers, settings.rounds, log);
    results.webhooks = { samples, events: settings.webhookEvents, subscribers: settings.webhookSubscribers };
  });

  if (want.has("wal")) await attempt("wal", async () => {
    const database = join(dir, "wal.db");
    const organization = initOrganization(database, "Steady SOC");
    log(`WAL: ${settings.walSeconds} s of sustained creates…`);
    results.wal = { ...(await sustainedCreates(database, organization, settings.walSeconds, settings.connections)), limitMb: settings.walTargetMb };
  });

  const report = markdown(results, failures);
  if (process.env.BENCH_REPORT) writeFileSync(process.env.BENCH_REPORT, `${report}\n`);
  console.log(`\n${report}\n`);
} finally {
  for (const r of running) await r.stop();
  for (const drop of dropAtEnd) await drop().catch((error: unknown) => log(`could not drop a bench database: ${String(error)}`));
  if (process.env.BENCH_KEEP === "1") console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
