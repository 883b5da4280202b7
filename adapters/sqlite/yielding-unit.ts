import type { Executor } from "../declare/dialect.js";

/**
 * The longest stretch, in milliseconds, a unit of work keeps the main thread before others get a
 * turn. Short because of how connections come in: libuv (1.45 on, Node 20) accepts ONE new
 * connection per event-loop turn, so while a long unit runs, the server takes in one connection
 * per slice. At 10 ms that is 100 connections a second, and clients that connect more often
 * (a GET every 5 ms, each on a new connection) queue up for the unit's whole length, then wait
 * for the queue (measured: p99 0.8–1.5 s behind a 1 s bulk). At 2 ms it is 500 a second, and a
 * turn costs a few microseconds.
 */
export const defaultSliceMs = 2;

/**
 * better-sqlite3 runs statements synchronously, and awaiting them resolves as a microtask: a long
 * unit of work (a selectAll bulk over thousands of rows, page after page) would hold the event
 * loop until it commits, so no other request could be answered meanwhile, not even a read that a
 * reader connection could serve at once. This wraps the unit's executor so that a statement
 * coming after the unit has run `sliceMs` without a break first lets the event loop take one turn
 * (setImmediate: pending I/O is served before it resumes). The unit keeps its connection, its
 * transaction and its place in the queue while it waits (a group runs its units one at a time):
 * only work that needs none of them runs in between. A single statement still runs to its end;
 * bulk pages keep statements short.
 *
 * It wraps the executor, the one way every statement goes, rather than each repository's
 * methods: one small object per unit instead of a closure per method of every repository used.
 */
export function yieldingExecutor(executor: Executor, sliceMs = defaultSliceMs, now: () => number = () => performance.now()): Executor {
  return new YieldingExecutor(executor, sliceMs, now);
}

class YieldingExecutor implements Executor {
  /** When the unit last had the event loop's turn (its start, at first). */
  private since: number;

  constructor(
    private readonly executor: Executor,
    private readonly sliceMs: number,
    private readonly now: () => number,
  ) {
    this.since = now();
  }

  all(sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
    return this.due() ? this.turn().then(() => this.executor.all(sql, params)) : this.executor.all(sql, params);
  }

  records<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return this.due() ? this.turn().then(() => this.executor.records<T>(sql, params)) : this.executor.records<T>(sql, params);
  }

  run(sql: string, params: readonly unknown[]): Promise<number> {
    return this.due() ? this.turn().then(() => this.executor.run(sql, params)) : this.executor.run(sql, params);
  }

  guarded(sql: string, params: readonly unknown[]): Promise<number> {
    return this.due() ? this.turn().then(() => this.executor.guarded(sql, params)) : this.executor.guarded(sql, params);
  }

  private due(): boolean {
    return this.now() - this.since >= this.sliceMs;
  }

  private turn(): Promise<void> {
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.since = this.now();
    });
  }
}
