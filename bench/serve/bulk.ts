/**
 * selectAll bulks of many alerts and tasks on the running server, each timed to its answer while a
 * probe GET is sent every `probeMs` (never waiting for the previous one, each on a new
 * connection): the probe's p99 says how long a request waits behind the bulk.
 */
import { api, request } from "./api.js";

export interface BulkSample {
  seconds: number;
  probeP99Ms: number;
  probes: number;
}

export async function timedWithProbe(origin: string, key: string, probePath: string, probeMs: number, work: () => Promise<void>): Promise<BulkSample> {
  const latencies: number[] = [];
  const pending = new Set<Promise<void>>();
  let probing = true;
  const probe = async () => {
    const started = performance.now();
    const { status } = await request(`${origin}/api/v1${probePath}`, key);
    if (status !== 200) throw new Error(`probe GET ${probePath}: ${status}`);
    latencies.push(performance.now() - started);
  };
  const timer = setInterval(() => {
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
  latencies.sort((a, b) => a - b);
  return { seconds, probeP99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? NaN, probes: latencies.length };
}

export interface BulkTargets {
  origin: string;
  key: string;
  userId: string;
  rows: number;
  probeMs: number;
}

const probePath = "/cases?limit=10";

/** POST /bulk/alerts/assign over every alert (the same assignee each round: every alert is written). */
export async function bulkAssignAlerts(t: BulkTargets): Promise<BulkSample> {
  return timedWithProbe(t.origin, t.key, probePath, t.probeMs, async () => {
    const result = await api<{ matched: number }>(t.origin, t.key, "POST", "/bulk/alerts/assign", { options: { selectAll: true }, assigneeId: t.userId });
    if (result.matched !== t.rows) throw new Error(`bulk assign matched ${result.matched} alerts, not ${t.rows}`);
  });
}

/** POST /bulk/tasks over every task, assigning and unassigning by turns so each round changes them all. */
export async function bulkUpdateTasks(t: BulkTargets, round: number): Promise<BulkSample> {
  return timedWithProbe(t.origin, t.key, probePath, t.probeMs, async () => {
    const fields = { assigneeId: round % 2 === 0 ? t.userId : null };
    const result = await api<{ matched: number }>(t.origin, t.key, "POST", "/bulk/tasks", { options: { selectAll: true }, fields });
    if (result.matched !== t.rows) throw new Error(`bulk task update matched ${result.matched} tasks, not ${t.rows}`);
  });
}

/**
 * Both bulks, `rounds` times by turns, each round logged. `settle`, when given, runs before each
 * bulk, outside the timed span (PostgreSQL: the vacuum a live server's autovacuum would have run
 * meanwhile, the seeded rows' statistics included).
 */
export async function bulkRounds(t: BulkTargets, rounds: number, label: string, log: (line: string) => void, settle?: () => Promise<void>): Promise<{ alerts: BulkSample[]; tasks: BulkSample[] }> {
  const bulk = { alerts: [] as BulkSample[], tasks: [] as BulkSample[] };
  for (let round = 1; round <= rounds; round++) {
    await settle?.();
    const alerts = await bulkAssignAlerts(t);
    await settle?.();
    const tasks = await bulkUpdateTasks(t, round);
    bulk.alerts.push(alerts);
    bulk.tasks.push(tasks);
    log(`round ${round}  ${label} bulk alerts ${alerts.seconds.toFixed(2)} s (probe p99 ${alerts.probeP99Ms.toFixed(1)} ms), tasks ${tasks.seconds.toFixed(2)} s (probe p99 ${tasks.probeP99Ms.toFixed(1)} ms)`);
  }
  return bulk;
}
