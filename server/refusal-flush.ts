import type { CaseKit } from "../core/index.js";
import { refusalWindowMs } from "../core/index.js";

export interface RefusalFlush {
  /** Stops the timer and writes every window still open (shutdown: nothing counted is lost). */
  stop(): Promise<void>;
}

/**
 * Drives the core's refusal log (core/audit/refusals.ts), which starts no timers: once a window
 * it writes what closed windows counted, so a burst that stops is still written within about
 * two windows. A failing write is reported and retried by the next tick (the core keeps it).
 */
export function startRefusalFlush(kit: CaseKit, options: { everyMs?: number; onError?: (error: unknown) => void } = {}): RefusalFlush {
  const timer = setInterval(() => {
    kit.refusals.flush().catch((error: unknown) => options.onError?.(error));
  }, options.everyMs ?? refusalWindowMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await kit.refusals.flush({ all: true });
    },
  };
}
