/**
 * Long work inside one unit (a bulk's chunk rows, one statement each) gives the event loop a turn
 * now and then, so other requests are let in and answered meanwhile.
 */

/** The longest stretch (ms) of such work before the event loop gets a turn. */
export const defaultBreatherSliceMs = 2;

/** Resolves after one event-loop turn once `sliceMs` have passed since the last turn; at once otherwise. */
export function breather(sliceMs = defaultBreatherSliceMs): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}
