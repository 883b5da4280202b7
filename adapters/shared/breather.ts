/**
 * Long work inside one unit (a bulk's chunk rows, one statement each) gives the event loop a turn
 * now and then, so other requests are let in and answered meanwhile.
 */

/**
 * The longest stretch (ms) of such work before the event loop gets a turn. A request arriving
 * meanwhile waits for one stretch per turn it needs (three or four); a turn costs a few
 * microseconds, so a bulk's 300 ms of hashing pays about a millisecond for 0.5 ms stretches.
 */
export const defaultBreatherSliceMs = 0.5;

/**
 * Answers a promise of one event-loop turn once `sliceMs` have passed since the last turn, and
 * undefined otherwise (nothing to wait for: work split into many small pieces, such as hashing a
 * bulk's group entry record by record, pays a clock read per piece, not a promise). In a long unit
 * that gives way to short ones (`giveWay`, short-units-first.ts) the turn also waits for them.
 */
export function breather({ sliceMs = defaultBreatherSliceMs, giveWay }: { sliceMs?: number; giveWay?: (() => Promise<void> | undefined) | undefined } = {}): () => Promise<void> | undefined {
  let since = performance.now();
  const turned = (): void => {
    since = performance.now();
  };
  return () => {
    if (performance.now() - since < sliceMs) return undefined;
    return new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => giveWay?.())
      .then(turned);
  };
}
