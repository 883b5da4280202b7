/**
 * selectAll bulks of many alerts and tasks on the running server, each kind twice a round: once
 * alone, timed to its answer (issue 14's bulk figure: how long the bulk takes), and once while a
 * probe GET is sent every `probeMs` (never waiting for the previous one, each on a new
 * connection), whose p99 says how long a request waits behind the bulk; that bulk's own time is
 * reported beside it.
 *
 * Why twice: the probes share the server's main thread and the machine's cores with the bulk. On
 * the 2-core virtual machines of the README's runs a probe cost the server 1.1–1.5 ms of its main
 * thread's CPU (a bare node:http server pays 0.4–0.5 ms for such a request there, most of it the
 * machine's cost of a new connection and of waking an idle process), so 200 probes a second took
 * a quarter of a core from the bulk they measured, and a bulk's time then said as much about the
 * probes as about the bulk.
 */
import { api, request } from "./api.js";

export interface BulkSample {
  /** The bulk alone, to its answer. */
  seconds: number;
  /** The same bulk while probed, to its answer. */
  probedSeconds: number;
  probeP99Ms: number;
  probes: number;
}

interface Timed {
  seconds: number;
  latencies: number[];
}

/** `work` timed to its end; a probe GET every `probeMs` meanwhile unless `probeMs` is undefined. */
async function timed(origin: string, key: string, probePath: string, probeMs: number | undefined, work: () => Promise<void>): Promise<Timed> {
  const latencies: number[] = [];
  const pending = new Set<Promise<void>>();
  let probing = probeMs !== undefined;
  const probe = async () => {
    const started = performance.now();
    const { status } = await request(`${origin}/api/v1${probePath}`, key);
    if (status !== 200) throw new Error(`probe GET ${probePath}: ${status}`);
    latencies.push(performance.now() - started);
  };
  const timer =
    probeMs === undefined
      ? undefined
      : setInterval(() => {
          if (!probing) return;
          const p = probe().finally(() => pending.delete(p));
          pending.add(p);
        }, probeMs);
  const started = performance.now();
  try {
    await work();
  } finally {
    probing = false;
    clearInterval(timer);
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pending);
  return { seconds, latencies };
}

export interface BulkTargets {
  origin: string;
  key: string;
  userId: string;
  rows: number;
  probeMs: number;
}

const probePath = "/cases?limit=10";

/** POST /bulk/alerts/assign over every alert (the same assignee each time: every alert is written). */
function assignAlerts(t: BulkTargets): () => Promise<void> {
  return async () => {
    const result = await api<{ matched: number }>(t.origin, t.key, "POST", "/bulk/alerts/assign", { options: { selectAll: true }, assigneeId: t.userId });
    if (result.matched !== t.rows) throw new Error(`bulk assignment matched ${result.matched} alerts, not ${t.rows}`);
  };
}

/** POST /bulk/tasks over every task, assigning (`assign`) or unassigning, so that each run by turns changes them all. */
function updateTasks(t: BulkTargets, assign: boolean): () => Promise<void> {
  return async () => {
    const result = await api<{ matched: number }>(t.origin, t.key, "POST", "/bulk/tasks", { options: { selectAll: true }, fields: { assigneeId: assign ? t.userId : null } });
    if (result.matched !== t.rows) throw new Error(`bulk task update matched ${result.matched} tasks, not ${t.rows}`);
  };
}

/**
 * One kind's two runs in a round, alone and probed, in the order `aloneFirst` says (the harness
 * alternates it by round, so neither always runs on the state the other left). `nextRun` gives
 * each run its request (a task bulk alternates what it sets); `settle`, when given, runs before
 * each, outside the timed span.
 */
async function twice(t: BulkTargets, aloneFirst: boolean, nextRun: () => () => Promise<void>, settle?: () => Promise<void>): Promise<BulkSample> {
  let alone: Timed | undefined;
  let probed: Timed | undefined;
  for (const probing of aloneFirst ? [false, true] : [true, false]) {
    await settle?.();
    const result = await timed(t.origin, t.key, probePath, probing ? t.probeMs : undefined, nextRun());
    if (probing) probed = result;
    else alone = result;
  }
  const latencies = probed!.latencies.sort((a, b) => a - b);
  return {
    seconds: alone!.seconds,
    probedSeconds: probed!.seconds,
    probeP99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? NaN,
    probes: latencies.length,
  };
}

/**
 * Both bulks, `rounds` times by turns, each alone and probed, each round logged. `settle`, when
 * given, runs before each bulk, outside the timed span (PostgreSQL: the vacuum a live server's
 * autovacuum would have run meanwhile, the seeded rows' statistics included).
 */
export async function bulkRounds(t: BulkTargets, rounds: number, label: string, log: (line: string) => void, settle?: () => Promise<void>): Promise<{ alerts: BulkSample[]; tasks: BulkSample[] }> {
  const bulk = { alerts: [] as BulkSample[], tasks: [] as BulkSample[] };
  let taskRuns = 0;
  for (let round = 1; round <= rounds; round++) {
    const aloneFirst = round % 2 === 1;
    const alerts = await twice(t, aloneFirst, () => assignAlerts(t), settle);
    const tasks = await twice(t, aloneFirst, () => updateTasks(t, taskRuns++ % 2 === 0), settle);
    bulk.alerts.push(alerts);
    bulk.tasks.push(tasks);
    const line = (s: BulkSample) => `${s.seconds.toFixed(2)} s alone, ${s.probedSeconds.toFixed(2)} s probed (p99 ${s.probeP99Ms.toFixed(1)} ms)`;
    log(`round ${round}  ${label} bulk alerts ${line(alerts)}; tasks ${line(tasks)}`);
  }
  return bulk;
}
