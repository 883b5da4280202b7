import type { RateLimits } from "./tiers.js";

const minuteMs = 60_000;
/** Minute buckets counted for the hourly cap: 61, so they always cover the last full hour. */
const hourBuckets = 61;
const epsilon = 1e-6;

/**
 * A key's limiter state: GCRA's theoretical arrival time for the per-minute rate, the request
 * counts of recent minutes for the hourly cap, and the last reported reset (kept monotonic).
 */
export interface LimiterState {
  tat: number;
  buckets: [minute: number, count: number][];
  reset: number;
}

export interface LimitDecision {
  allowed: boolean;
  /** The limit of the window that binds: `burst` for the minute rate, `perHour` for the hour. */
  limit: number;
  window: "minute" | "hour";
  remaining: number;
  /** Epoch ms at which the binding window is fully restored; never decreases for one key. */
  resetAt: number;
  /** Epoch ms until a refused request may succeed; 0 when allowed. */
  retryAfterMs: number;
}

export interface DecideOptions {
  /** Units the request spends (whole, ≥ 1; default 1). */
  cost?: number;
  /**
   * Record the cost whether or not it fits: for work already done (a bulk request's rows, counted
   * once it finished). The budget may go below zero; later requests are refused until it recovers.
   */
  force?: boolean;
}

/**
 * Decides one request at `now` (epoch ms). Admitted only if both limiters admit its cost, and
 * then both record it; a refusal records nothing. Guarantees, for any window of length L: admitted
 * units ≤ burst + perMinute·L/1min, and in any hour ≤ perHour (buckets over-cover the hour, so
 * the cap errs on the safe side); forced charges count against both and only delay later requests.
 * Pure: `state` is left as it was, and the state to store is a new one.
 */
export function decide(limits: RateLimits, state: LimiterState | null, now: number, options: DecideOptions = {}): { state: LimiterState; decision: LimitDecision } {
  const { state: after, result } = decideInPlace(limits, state === null ? null : copyOfState(state), now, options);
  return { state: after, decision: result };
}

/** A state no later change of `state` reaches (its buckets copied too). */
export function copyOfState(state: LimiterState): LimiterState {
  return { tat: state.tat, buckets: state.buckets.map(([minute, count]) => [minute, count]), reset: state.reset };
}

/**
 * `decide` for a store that owns `state` alone and runs this once (RateLimitStore.updateNow): the
 * state is changed in place, not copied, and the answer is in the shape `updateNow` takes. A
 * metered request then allocates its decision and little else: the limiter runs on every request.
 */
export function decideInPlace(limits: RateLimits, state: LimiterState | null, now: number, options: DecideOptions): { state: LimiterState; result: LimitDecision } {
  const cost = options.cost ?? 1;
  const minute = Math.floor(now / minuteMs);
  const buckets = state === null ? [] : withinHour(state.buckets, minute);
  let hourCount = 0;
  for (let i = 0; i < buckets.length; i++) hourCount += buckets[i]![1];
  const interval = minuteMs / limits.perMinute; // GCRA emission interval (0 when unbounded)
  const capacity = limits.burst * interval;
  const tat = Math.max(state?.tat ?? now, now);
  const nextTat = tat + interval * cost;

  const minuteOk = !Number.isFinite(limits.perMinute) || nextTat - now <= capacity + epsilon;
  const hourOk = !Number.isFinite(limits.perHour) || hourCount + cost <= limits.perHour;
  const allowed = options.force === true || (minuteOk && hourOk);

  // A refusal leaves the buckets as they are, so hourFreesAt below reads the ones it was refused on.
  let retryAfterMs = 0;
  if (!allowed) {
    const minuteWait = minuteOk ? 0 : tat + interval - capacity - now;
    const hourWait = hourOk ? 0 : hourFreesAt(buckets, limits.perHour) - now;
    retryAfterMs = Math.max(minuteWait, hourWait, 1);
  }

  const newTat = allowed && Number.isFinite(limits.perMinute) ? nextTat : tat;
  const newBuckets = allowed ? addToBucket(buckets, minute, cost) : buckets;
  const newHourCount = hourCount + (allowed ? cost : 0);

  const minuteRemaining = Number.isFinite(limits.perMinute) ? Math.max(0, Math.floor((capacity - (newTat - now) + epsilon) / interval)) : Infinity;
  const hourRemaining = Number.isFinite(limits.perHour) ? Math.max(0, limits.perHour - newHourCount) : Infinity;
  const minuteReset = newTat;
  const hourReset = newBuckets.length > 0 ? (newBuckets[newBuckets.length - 1]![0] + hourBuckets) * minuteMs : now;
  // Both spent (a forced charge can do that): the window that recovers later binds.
  const bothSpent = hourRemaining === 0 && minuteRemaining === 0 && hourReset > minuteReset;
  const hourBinds = hourRemaining < minuteRemaining || (!hourOk && minuteOk) || bothSpent;
  const resetAt = Math.max(state?.reset ?? 0, hourBinds ? hourReset : minuteReset, now);

  const stored = state ?? { tat: newTat, buckets: newBuckets, reset: resetAt };
  stored.tat = newTat;
  stored.buckets = newBuckets;
  stored.reset = resetAt;
  return {
    state: stored,
    result: {
      allowed,
      limit: hourBinds ? limits.perHour : limits.burst,
      window: hourBinds ? "hour" : "minute",
      remaining: hourBinds ? hourRemaining : minuteRemaining,
      resetAt,
      retryAfterMs,
    },
  };
}

/** Drops, in place, the buckets that have left the hour. */
function withinHour(buckets: [number, number][], minute: number): [number, number][] {
  const oldest = minute - hourBuckets;
  let kept = 0;
  for (let i = 0; i < buckets.length; i++) if (buckets[i]![0] > oldest) buckets[kept++] = buckets[i]!;
  if (kept < buckets.length) buckets.length = kept;
  return buckets;
}

/** Adds `cost` to this minute's bucket, in place. */
function addToBucket(buckets: [number, number][], minute: number, cost: number): [number, number][] {
  const last = buckets[buckets.length - 1];
  if (last && last[0] === minute) last[1] += cost;
  else buckets.push([minute, cost]);
  return buckets;
}

/** When enough old buckets will have left the hour for one more request to fit. */
function hourFreesAt(buckets: [number, number][], perHour: number): number {
  let count = buckets.reduce((sum, [, c]) => sum + c, 0);
  for (const [minute, c] of buckets) {
    count -= c;
    if (count + 1 <= perHour) return (minute + hourBuckets) * minuteMs;
  }
  return 0;
}
