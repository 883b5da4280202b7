/**
 * Progress lines for the commands that can run long (copy, backup, migrate), written to standard
 * error so that standard output stays the result. Nothing is shown for work that ends within
 * `afterMs` (a few seconds): short runs stay quiet. After that, a line at most every `everyMs`,
 * plus every line marked final (a table copied in full, say).
 */
export interface ProgressTiming {
  /** Quiet for this long from the start (default 2 s). */
  afterMs?: number;
  /** At most one line this often (default 1 s), final lines aside. */
  everyMs?: number;
  now?: () => number;
}

export interface Progress {
  report(text: string, final?: boolean): void;
  /** Calls `text()` every `everyMs` once `afterMs` passed, until the returned stop is called: for work that tells nothing as it goes. */
  tick(text: (elapsedMs: number) => string): () => void;
}

export function createProgress(write: (line: string) => void, prefix: string, timing: ProgressTiming = {}): Progress {
  const afterMs = timing.afterMs ?? 2_000;
  const everyMs = timing.everyMs ?? 1_000;
  const now = timing.now ?? Date.now;
  const started = now();
  let last = -Infinity;
  return {
    report(text, final = false) {
      const at = now();
      if (at - started < afterMs) return;
      if (!final && at - last < everyMs) return;
      last = at;
      write(`${prefix}: ${text}`);
    },
    tick(text) {
      let timer: NodeJS.Timeout | undefined;
      const first = setTimeout(() => {
        write(`${prefix}: ${text(now() - started)}`);
        timer = setInterval(() => write(`${prefix}: ${text(now() - started)}`), Math.max(everyMs, 1));
        timer.unref();
      }, afterMs);
      first.unref();
      return () => {
        clearTimeout(first);
        clearInterval(timer);
      };
    },
  };
}

/** 12345 as "12 345": counts read at a glance. */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}
