export interface PoolLimits {
  /** Items running at once, in all. */
  overall: number;
  /** Items of one key running at once. */
  perKey: number;
}

/**
 * Runs `run` over `items` with at most `limits.overall` running at once and at most
 * `limits.perKey` of one key (a webhook's target): a slow target holds only its own share. Items
 * start in the order given, and those of one key strictly in that order. When a run fails, no
 * further item starts; the promise rejects with the first failure once the running ones finished
 * (their work is not left behind unawaited).
 */
export function runBounded<T>(items: readonly T[], limits: PoolLimits, keyOf: (item: T) => string, run: (item: T) => Promise<void>): Promise<void> {
  const waiting = [...items];
  const busy = new Map<string, number>();
  let running = 0;
  let failure: { error: unknown } | undefined;
  return new Promise<void>((resolve, reject) => {
    const settleIfIdle = () => {
      if (running > 0) return;
      if (failure) reject(failure.error);
      else if (waiting.length === 0) resolve();
    };
    const pump = () => {
      for (let index = 0; !failure && index < waiting.length && running < limits.overall; ) {
        const item = waiting[index]!;
        const key = keyOf(item);
        const ofKey = busy.get(key) ?? 0;
        if (ofKey >= limits.perKey) {
          index += 1;
          continue;
        }
        waiting.splice(index, 1);
        running += 1;
        busy.set(key, ofKey + 1);
        const finished = () => {
          running -= 1;
          busy.set(key, busy.get(key)! - 1);
          pump();
        };
        run(item).then(finished, (error: unknown) => {
          failure ??= { error };
          finished();
        });
      }
      settleIfIdle();
    };
    pump();
  });
}
