import type { LimiterState } from "../limits/limiter.js";
import { copyOfState } from "../limits/limiter.js";

/**
 * Where limiter state lives. One process can keep it in memory; several hosts behind a load
 * balancer share a store (the PostgreSQL one in casekit/postgres) so a key's budget is global.
 */
export interface RateLimitStore {
  /**
   * Atomically: reads the state of `key` (null if none), runs `next` on it, stores the state it
   * returns, and resolves with its result. Concurrent updates of one key never both build on the
   * same state. `next` is pure and may run more than once (a store that decides on a state it
   * remembers and finds it outdated runs it again on the stored one); only the run whose state is
   * stored gives the result. Rejects when the store cannot be reached.
   */
  update<R>(key: string, next: (state: LimiterState | null) => { state: LimiterState; result: R }): Promise<R>;
  /**
   * `update` done at once, for a store in this process: no promise and no turn of the microtask
   * queue, so a request pays for its metering no more than the decision itself. `next` runs once
   * and is handed the store's own state, which it may change in place and return (the limiter
   * does: no copy per request); the store keeps what it returns. A store that waits on anything
   * leaves it out, and the limiter then uses `update`.
   */
  updateNow?<R>(key: string, next: (state: LimiterState | null) => { state: LimiterState; result: R }): R;
  /** Reads without changing: a copy, which later updates leave as it is. */
  peek(key: string): Promise<LimiterState | null>;
  /**
   * True when an update waits on another process (a database shared by several hosts). The
   * limiter then starts a key's update while the key itself is still being checked, so a request
   * waits for one round trip instead of two (core/limits/early-spend.ts). An in-process store
   * leaves it out: its update costs no wait, and starting it early would only cost work.
   */
  readonly remote?: boolean;
}

/**
 * The in-process store. States untouched for over an hour carry nothing the limiter still counts,
 * so they are swept out as the map grows.
 */
export function createMemoryRateLimitStore(options: { sweepEvery?: number; now?: () => number } = {}): RateLimitStore {
  const states = new Map<string, LimiterState>();
  const sweepEvery = options.sweepEvery ?? 10_000;
  let updates = 0;

  /** When a state was last touched: the later of its arrival time and its reported reset. */
  const touchedAt = (state: LimiterState): number => Math.max(state.tat, state.reset);

  function sweep(now: number): void {
    for (const [key, state] of states) if (now - touchedAt(state) > 61 * 60_000 && state.tat < now) states.delete(key);
  }

  function updateNow<R>(key: string, next: (state: LimiterState | null) => { state: LimiterState; result: R }): R {
    const { state, result } = next(states.get(key) ?? null);
    states.set(key, state);
    if (++updates % sweepEvery === 0) sweep(options.now ? options.now() : touchedAt(state));
    return result;
  }

  return {
    updateNow,
    async update(key, next) {
      return updateNow(key, next);
    },
    async peek(key) {
      const state = states.get(key);
      return state === undefined ? null : copyOfState(state);
    },
  };
}
