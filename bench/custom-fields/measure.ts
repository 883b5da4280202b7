/**
 * The measuring half of `npm run bench -- custom-fields`: run in a process of its own on a database
 * the loader filled, as a host serving these requests would be (the loader's own heap, 400 000
 * records written in-process, is not what a serving process carries). BENCH_CF_TARGET names the
 * database, the organization and its admin key; the table goes to stdout.
 *
 *   BENCH_CF_TARGET='{"database":"postgres",...}' node --import tsx bench/custom-fields/measure.ts
 *   (BENCH_CF_KEEP=1 on the loader prints this command for the kept database)
 */
import type { Storage } from "../../core/index.js";
import { createCaseKit } from "../../core/index.js";
import { selectPage } from "../../core/bulk/run.js";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createCaseKitApp } from "../../server/index.js";

/** The database the loader filled. */
export type Where = { database: "sqlite"; path: string } | { database: "postgres"; url: string; schema: string };

export type MeasureTarget = { records: number; samples: number; keyHashSecret: string; apiKey: string; org: string; user: string } & Where;

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

async function measure(target: MeasureTarget, storage: Storage): Promise<void> {
  const { records: total, samples, org } = target;
  const kit = createCaseKit({ storage, config: { keyHashSecret: target.keyHashSecret } });
  const app = createCaseKitApp(kit);
  const headers = { Authorization: `Bearer ${target.apiKey}` };
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
  await timed("POST /bulk/alerts/assign selectAll cf.impact=critical (whole request)", 5, async () => {
    const response = await app.fetch(new Request("http://bench.local/api/v1/bulk/alerts/assign", { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify({ assigneeId: target.user, options: { selectAll: true, filters: { customFields: { impact: "critical" } } } }) }));
    if (!response.ok) throw new Error(`bulk: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  });
}

const target = JSON.parse(process.env.BENCH_CF_TARGET ?? "null") as MeasureTarget | null;
if (target === null) throw new Error("BENCH_CF_TARGET is not set: run `npm run bench -- custom-fields`, which loads a database and starts this");
const storage = target.database === "sqlite" ? createSqliteStorage({ path: target.path }) : createPostgresStorage({ connectionString: target.url, schema: target.schema });
try {
  await measure(target, storage);
} finally {
  await storage.close();
}
