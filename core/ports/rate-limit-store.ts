import type { LimiterState } from "../limits/limiter.js";

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
  /** Reads without changing. */
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
  const states = new Map<string, { state: LimiterState; touched: number }>();
  const sweepEvery = options.sweepEvery ?? 10_000;
  let updates = 0;

  function sweep(now: number): void {
    for (const [key, entry] of states) if (now - entry.touched > 61 * 60_000 && entry.state.tat < now) states.delete(key);
  }

  return {
    async update(key, next) {
      const entry = states.get(key);
      const { state, result } = next(entry?.state ?? null);
      const touched = Math.max(state.tat, state.reset);
      states.set(key, { state, touched });
      if (++updates % sweepEvery === 0) sweep(options.now ? options.now() : touched);
      return result;
    },
    async peek(key) {
      return states.get(key)?.state ?? null;
    },
  };
}
