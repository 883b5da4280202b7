/**
 * Units of work per second on a SQLite WAL file: N concurrent clients, each looping over a
 * POST-like unit (the case counter, a case, an audit entry, an event) with one event-loop turn
 * between its units, as a request would have. Point BENCH_ROOT at another checkout (say, main) to
 * measure its adapter the same way; run the two alternately.
 *
 *   npm run bench -- group-commit
 *   BENCH_ROOT=/path/to/other/checkout BENCH_CLIENTS=1,10,50 npm run bench -- group-commit
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Storage } from "../core/index.js";
import type * as SqliteAdapter from "../adapters/sqlite/index.js";
import type * as Fixtures from "../test/conformance/fixtures.js";

const root = resolve(process.env.BENCH_ROOT ?? join(import.meta.dirname, ".."));
const clientCounts = (process.env.BENCH_CLIENTS ?? "1,10,50").split(",").map(Number);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const load = <T>(path: string) => import(pathToFileURL(join(root, path)).href) as Promise<T>;
const { createSqliteStorage } = await load<typeof SqliteAdapter>("adapters/sqlite/index.ts");
const { createFixtures } = await load<typeof Fixtures>("test/conformance/fixtures.ts");

const scratch = mkdtempSync(join(tmpdir(), "casekit-group-commit-"));
const turn = () => new Promise<void>((done) => setImmediate(done));

/** Units per second, and CPU time per unit in µs (steadier than the rate on a shared machine). */
async function round(clients: number): Promise<{ perSecond: number; cpuMicros: number }> {
  const storage: Storage = createSqliteStorage({ path: join(scratch, `db-${clients}-${Math.random()}.sqlite`) });
  await storage.migrate();
  const f = createFixtures();
  const org = f.organization();
  await storage.transaction((tx) => tx.organizations.insert(org));
  let units = 0;
  const deadline = performance.now() + seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      await storage.transaction(async (tx) => {
        const number = await tx.organizations.nextCaseNumber(org.id);
        const record = f.caseRecord(org.id, { number });
        await tx.cases.insert(record);
        await tx.audit.append(f.auditEntry(org.id, { target: { type: "case", id: record.id, caseId: record.id } }));
        await tx.events.append(f.event(org.id, { resourceId: record.id }));
      });
      units += 1;
      await turn();
    }
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: clients }, client));
  const used = process.cpuUsage(cpu);
  const perSecond = units / ((performance.now() - started) / 1000);
  await storage.close();
  return { perSecond, cpuMicros: (used.user + used.system) / units };
}

console.log(`\nSQLite units of work per second (WAL file, ${seconds} s per run, median of ${rounds}), adapter of ${root}`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const clients of clientCounts) {
  const samples: { perSecond: number; cpuMicros: number }[] = [];
  for (let i = 0; i < rounds; i++) samples.push(await round(clients));
  const rates = samples.map((s) => s.perSecond);
  const cpu = samples.map((s) => s.cpuMicros);
  console.log(
    `  ${String(clients).padStart(3)} concurrent clients: ${median(rates).toFixed(0).padStart(7)} units/s, ${median(cpu).toFixed(0).padStart(4)} µs CPU per unit   (runs: ${rates.map((r) => r.toFixed(0)).join(", ")} units/s)`,
  );
}
rmSync(scratch, { recursive: true, force: true });
