import type { UnitOfWork } from "../../core/ports/storage.js";

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
 * reader connection could serve at once. This wraps the unit's repositories so that a call coming
 * after the unit has run `sliceMs` without a break first lets the event loop take one turn
 * (setImmediate: pending I/O is served before it resumes). The unit keeps its connection, its
 * transaction and its place in the queue while it waits: only work that needs none of them runs
 * in between. A single statement still runs to its end; bulk pages keep statements short.
 */
export function yieldingUnit(unit: UnitOfWork, sliceMs = defaultSliceMs, now: () => number = () => performance.now()): UnitOfWork {
  let since = now();
  const turn = (): Promise<void> =>
    new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      since = now();
    });

  const wrap = (repository: Record<string, unknown>): Record<string, unknown> => {
    const wrapped: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(repository)) {
      if (typeof member !== "function") {
        wrapped[name] = member;
        continue;
      }
      const method = member as (...args: unknown[]) => Promise<unknown>;
      wrapped[name] = (...args: unknown[]) =>
        now() - since < sliceMs ? method.apply(repository, args) : turn().then(() => method.apply(repository, args));
    }
    return wrapped;
  };

  // Each repository is wrapped when the unit first uses it: a unit touches a few of them, and
  // the unit of work builds each one only when asked (adapters/resources/unit-of-work.ts).
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(unit, {
    get(target, name) {
      let repository = wrapped.get(name);
      if (repository === undefined) {
        const original = Reflect.get(target, name) as Record<string, unknown> | undefined;
        if (original === undefined) return undefined;
        wrapped.set(name, (repository = wrap(original)));
      }
      return repository;
    },
  });
}
