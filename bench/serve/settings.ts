/**
 * What one run of `npm run bench -- serve` does, from the environment. Defaults are the full run
 * (minutes per scenario, 1 000 000 cases, 10 minutes of sustained creates); BENCH_QUICK=1 makes
 * every duration and count small enough for a development run of a couple of minutes.
 */
const quick = process.env.BENCH_QUICK === "1";

function number(name: string, full: number, short: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return quick ? short : full;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a positive number, not "${value}"`);
  return parsed;
}

export const settings = {
  quick,
  /** Rounds; every scenario runs once per round, in the same order. */
  rounds: number("BENCH_ROUNDS", 3, 3),
  /** Seconds each load scenario runs per round (after a warm-up of a fifth of that). */
  seconds: number("BENCH_SECONDS", 10, 2),
  /** Default autocannon connections. */
  connections: number("BENCH_CONNECTIONS", 50, 50),
  /** Cases seeded before the list scenario. */
  cases: number("BENCH_CASES", 1_000_000, 20_000),
  /** Alerts and tasks each seeded for the selectAll bulk scenarios. */
  bulkRows: number("BENCH_BULK_ROWS", 100_000, 5_000),
  /** Milliseconds between the GETs issued while a bulk runs. */
  probeMs: number("BENCH_PROBE_MS", 5, 5),
  /** The WAL size (MB) the WAL scenario must stay under (issue 14: 256, "configurable"). */
  walTargetMb: number("BENCH_WAL_TARGET_MB", 256, 256),
  /** Seconds of sustained creates for the WAL scenario. */
  walSeconds: number("BENCH_WAL_SECONDS", 600, 10),
  /**
   * Events queued per webhook round, and subscriptions each is delivered to. Quick runs still
   * deliver 3 000: a fresh process's first 900 deliveries cost it about a fifth more CPU each (its warm-up).
   */
  webhookEvents: number("BENCH_WEBHOOK_EVENTS", 2_000, 1_000),
  webhookSubscribers: number("BENCH_WEBHOOK_SUBSCRIBERS", 3, 3),
  /** Creates captured for the floor and replayed per floor measurement. */
  floorCreates: number("BENCH_FLOOR_CREATES", 5_000, 1_000),
  /** Creates per transaction in the batched floor. */
  floorBatch: number("BENCH_FLOOR_BATCH", 50, 50),
  /** Which scenario groups to run (comma-separated names, see scenarios.ts); all by default. */
  only: (process.env.BENCH_ONLY ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  /** Skip `npm run build` (dist/ must then be current). */
  skipBuild: process.env.BENCH_SKIP_BUILD === "1",
};
