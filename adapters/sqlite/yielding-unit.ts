import type { UnitOfWork } from "../../core/ports/storage.js";

/** The longest stretch, in milliseconds, a unit of work keeps the main thread before others get a turn. */
export const defaultSliceMs = 10;

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
export function yieldingUnit(unit: UnitOfWork, sliceMs = defaultSliceMs): UnitOfWork {
  let since = performance.now();
  const turn = (): Promise<void> =>
    new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      since = performance.now();
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
        performance.now() - since < sliceMs ? method.apply(repository, args) : turn().then(() => method.apply(repository, args));
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
