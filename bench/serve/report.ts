/**
 * The run's figures as markdown, ready for the README: every load scenario with its ratio to the
 * bare h3 endpoint of the same round, then each of issue 14's targets with the figure it is judged
 * on and whether it is met. Ratios are taken per round, then summarized (median, min–max).
 */
import type { BulkSample } from "./bulk.js";
import { fixed, show, table } from "./format.js";
import type { RoundResults } from "./rounds.js";
import { names } from "./scenarios.js";
import type { Spread } from "./stats.js";
import { spread } from "./stats.js";
import { settings } from "./settings.js";
import { targets } from "./targets.js";
import type { WalSample } from "./wal.js";
import type { DeliverySample } from "./webhooks.js";

export interface RunResults {
  rounds: RoundResults;
  connections: Map<string, number>;
  cases: number;
  bulkRows: number;
  bulk?: { alerts: BulkSample[]; tasks: BulkSample[] };
  bulkPostgres?: { alerts: BulkSample[]; tasks: BulkSample[] };
  wal?: WalSample & { limitMb: number };
  webhooks?: { samples: DeliverySample[]; events: number; subscribers: number };
}

export function markdown(run: RunResults, failures: { group: string; message: string }[] = []): string {
  const { load, floor } = run.rounds;
  const samples = (name: string) => load.get(name) ?? [];
  const bare = samples(names.bare);
  const perRound = (name: string, f: (i: number) => number) => spread(samples(name).map((_, i) => f(i)));
  const shareOfBare = (name: string) => perRound(name, (i) => samples(name)[i]!.requestsPerSecond / bare[i]!.requestsPerSecond);
  const cpuOverBare = (name: string) => perRound(name, (i) => samples(name)[i]!.cpuMicrosPerRequest / bare[i]!.cpuMicrosPerRequest);
  const has = (name: string) => samples(name).length > 0;

  const out: string[] = [];
  if (bare.length > 0) {
    out.push(
      "**Load** (autocannon; median of the rounds, min–max in brackets; % of bare = throughput as a share of the bare h3 endpoint in the same round):\n",
      table(
        ["request", "connections", "req/s", "% of bare h3", "p50 ms", "p99 ms", "server CPU µs/req", "CPU × bare"],
        [...load.keys()].filter(has).map((name) => {
          const s = samples(name);
          return [
            name,
            String(run.connections.get(name) ?? ""),
            show(spread(s.map((x) => x.requestsPerSecond))),
            show(shareOfBare(name), " %", 100),
            show(spread(s.map((x) => x.p50Ms))),
            show(spread(s.map((x) => x.p99Ms))),
            show(spread(s.map((x) => x.cpuMicrosPerRequest))),
            show(cpuOverBare(name)),
          ];
        }),
      ),
    );
  }
  if (floor.perCreate.length > 0) {
    out.push(
      "\n**Floor** (better-sqlite3 alone replaying the statements captured from `POST /cases`):\n",
      table(
        ["floor", "CPU µs per create", "wall µs per create"],
        [
          ["one transaction per create", show(spread(floor.perCreate.map((f) => f.cpuMicrosPerCreate))), show(spread(floor.perCreate.map((f) => f.wallMicrosPerCreate)))],
          [`${settings.floorBatch} creates per transaction`, show(spread(floor.batched.map((f) => f.cpuMicrosPerCreate))), show(spread(floor.batched.map((f) => f.wallMicrosPerCreate)))],
        ],
      ),
    );
  }

  const rows: string[][] = [];
  const judge = (figure: string, measured: string, ratios: string, target: string, met: boolean | undefined) =>
    rows.push([figure, measured, ratios, target, met === undefined ? "–" : met ? "yes" : "**no**"]);
  const median = (s: Spread) => s.median;

  if (has(names.create)) {
    const cpu = spread(samples(names.create).map((s) => s.cpuMicrosPerRequest));
    const share = shareOfBare(names.create);
    const overBatched = floor.batched.length > 0 ? perRound(names.create, (i) => samples(names.create)[i]!.cpuMicrosPerRequest / floor.batched[i]!.cpuMicrosPerCreate) : undefined;
    const overPerCreate = floor.perCreate.length > 0 ? perRound(names.create, (i) => samples(names.create)[i]!.cpuMicrosPerRequest / floor.perCreate[i]!.cpuMicrosPerCreate) : undefined;
    judge(
      "`POST /cases`: server CPU per create",
      show(cpu, " µs"),
      [overBatched ? `${show(overBatched, "×")} batched floor` : "", overPerCreate ? `${show(overPerCreate, "×")} per-create floor` : "", `${show(cpuOverBare(names.create), "×")} bare h3`].filter(Boolean).join("; "),
      `≤ ${targets.createCpuOverBatchedFloor}× the batched floor`,
      overBatched ? median(overBatched) <= targets.createCpuOverBatchedFloor : undefined,
    );
    // The floor's own rate: creates per second of wall time in one process, one commit each or batched.
    const floorRate = (list: { wallMicrosPerCreate: number }[]) =>
      list.length > 0 ? perRound(names.create, (i) => samples(names.create)[i]!.requestsPerSecond / (1e6 / list[i]!.wallMicrosPerCreate)) : undefined;
    const ofPerCreate = floorRate(floor.perCreate);
    const ofBatched = floorRate(floor.batched);
    judge(
      "`POST /cases`: throughput",
      show(spread(samples(names.create).map((s) => s.requestsPerSecond)), " req/s"),
      [
        `${show(share, " %", 100)} of bare h3 (issue 14 before: ${fixed(targets.createShareBefore * 100)} %)`,
        ofPerCreate ? `${show(ofPerCreate, " %", 100)} of the per-create floor's rate` : "",
        ofBatched ? `${show(ofBatched, " %", 100)} of the batched floor's` : "",
      ]
        .filter(Boolean)
        .join("; "),
      `≥ 3× before: ${fixed(targets.createShareBefore * 3 * 100)} % of bare h3`,
      median(share) >= targets.createShareBefore * 3,
    );
  }
  if (has(names.health)) {
    const share = shareOfBare(names.health);
    judge("authenticated `GET /health`", show(spread(samples(names.health).map((s) => s.requestsPerSecond)), " req/s"), `${show(share, " %", 100)} of bare h3; CPU ${show(cpuOverBare(names.health), "×")} bare`, `≥ ${targets.healthShare * 100} % of bare h3`, median(share) >= targets.healthShare);
  }
  if (has(names.metered) && has(names.unmetered)) {
    const m = samples(names.metered);
    const u = samples(names.unmetered);
    const cpu = spread(m.map((x, i) => x.cpuMicrosPerRequest / u[i]!.cpuMicrosPerRequest - 1));
    const throughput = spread(m.map((x, i) => u[i]!.requestsPerSecond / x.requestsPerSecond - 1));
    const added = spread(m.map((x, i) => x.cpuMicrosPerRequest - u[i]!.cpuMicrosPerRequest));
    // The same three headers on a bare node:http answer (header-host.ts): what writing them costs
    // whatever decides them, as a share of the unmetered request of the same round.
    const h = samples(names.headersAdded);
    const w = samples(names.headersAbsent);
    const headerFloor = h.length === m.length && w.length === m.length ? spread(h.map((x, i) => (x.cpuMicrosPerRequest - w[i]!.cpuMicrosPerRequest) / u[i]!.cpuMicrosPerRequest)) : undefined;
    const headerMicros = headerFloor ? spread(h.map((x, i) => x.cpuMicrosPerRequest - w[i]!.cpuMicrosPerRequest)) : undefined;
    judge(
      "metering on `GET /health` (bench host, metered vs unmetered key)",
      `+${show(cpu, " %", 100)} CPU per request (+${show(added, " µs")})`,
      [`+${show(throughput, " %", 100)} time per request by throughput`, headerFloor && headerMicros ? `the three headers alone on a bare node:http answer: +${show(headerMicros, " µs")}, ${show(headerFloor, " %", 100)} of the unmetered request` : ""].filter(Boolean).join("; "),
      `< ${targets.meteringOverhead * 100} % (judged on CPU)`,
      median(cpu) < targets.meteringOverhead,
    );
  }
  if (has(names.list)) {
    const share = shareOfBare(names.list);
    judge(`\`GET /cases?limit=50\`, ${fixed(run.cases)} cases`, show(spread(samples(names.list).map((s) => s.requestsPerSecond)), " req/s"), `${show(share, " %", 100)} of bare h3 (issue 14 before: ${fixed(targets.listShareBefore * 100)} %, at 205k cases)`, `≥ 4× before: ${fixed(targets.listShareBefore * 4 * 100)} % of bare h3`, median(share) >= targets.listShareBefore * 4);
  }
  if (has(names.list10)) {
    const p99 = spread(samples(names.list10).map((s) => s.p99Ms));
    judge(`\`GET /cases?limit=50\`, ${fixed(run.cases)} cases, 10 connections: p99`, show(p99, " ms"), `${show(shareOfBare(names.list10), " %", 100)} of bare h3`, `< ${targets.listP99Ms} ms`, median(p99) < targets.listP99Ms);
  }
  for (const [database, bulk, limit] of [["SQLite", run.bulk, targets.bulkSeconds], ["PostgreSQL", run.bulkPostgres, targets.bulkSecondsPostgres]] as const) {
    if (!bulk) continue;
    for (const [kind, list] of [["alerts", bulk.alerts], ["tasks", bulk.tasks]] as const) {
      const seconds = spread(list.map((s) => s.seconds));
      const probed = spread(list.map((s) => s.probedSeconds));
      const probe = spread(list.map((s) => s.probeP99Ms));
      judge(`selectAll bulk of ${fixed(run.bulkRows)} ${kind} (${database}), alone`, show(seconds, " s"), `${show(probed, " s")} while answering the GETs below`, `< ${limit} s`, median(seconds) < limit);
      judge(`${database}: a \`GET /cases?limit=10\` every ${settings.probeMs} ms while the ${kind} bulk runs: p99`, show(probe, " ms"), `${fixed(spread(list.map((s) => s.probes)).median)} GETs per bulk`, `< ${targets.probeP99Ms} ms`, median(probe) < targets.probeP99Ms);
    }
  }
  if (run.wal) {
    const mb = (b: number) => b / 1024 / 1024;
    judge(
      `WAL after ${run.wal.seconds >= 120 ? `${fixed(run.wal.seconds / 60)} min` : `${fixed(run.wal.seconds)} s`} of sustained creates`,
      `peak ${fixed(mb(run.wal.peakBytes))} MB, final ${fixed(mb(run.wal.finalBytes))} MB`,
      `${fixed(run.wal.creates / run.wal.seconds)} creates/s`,
      `< ${run.wal.limitMb} MB (judged on the peak)`,
      mb(run.wal.peakBytes) < run.wal.limitMb,
    );
  }
  if (run.webhooks) {
    const rate = spread(run.webhooks.samples.map((s) => s.deliveriesPerSecond));
    judge(
      `webhook fan-out to a loopback receiver (${run.webhooks.events} events × ${run.webhooks.subscribers} subscriptions)`,
      show(rate, " deliveries/s"),
      `${show(spread(run.webhooks.samples.map((s) => s.cpuMicrosPerDelivery)), " µs")} server CPU per delivery`,
      `≥ ${fixed(targets.deliveriesPerSecond)} deliveries/s`,
      median(rate) >= targets.deliveriesPerSecond,
    );
  }
  if (rows.length > 0) out.push("\n**Issue 14's figures to reach** (judged on the median):\n", table(["figure", "measured", "ratios", "target", "met"], rows));
  if (failures.length > 0) out.push("\n**Failed** (no figures):\n", ...failures.map((f) => `- ${f.group}: ${f.message.split("\n")[0]}`));
  return out.join("\n");
}
