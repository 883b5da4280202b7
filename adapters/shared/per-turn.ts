/**
 * Answers every `get(key)` asked for in one turn of the event loop with one `fetch` of all their
 * keys. The fetch runs in the turn's check phase (`setImmediate`), after the poll phase has read
 * the turn's requests from their sockets: it starts later than the arrival of every request it
 * answers, so what it reads is at least as new as every commit that finished before any of them
 * arrived. A request asked for during a fetch waits for the next one, never for one that started
 * before it.
 *
 * For reads that must be fresh on every request (the access version): under load a turn holds
 * many requests, and they share one read instead of paying one each.
 */
export interface PerTurn<K, V> {
  get(key: K): Promise<V>;
}

interface Waiter<V> {
  resolve: (value: V) => void;
  reject: (error: unknown) => void;
}

/** `fetch` answers every key it is given (a key it leaves out gets `missing`); when it throws, every waiter of that fetch gets the error. */
export function perTurn<K, V>(fetch: (keys: K[]) => Map<K, V> | Promise<Map<K, V>>, missing: V): PerTurn<K, V> {
  let waiting: Map<K, Waiter<V>[]> | undefined;

  async function run(batch: Map<K, Waiter<V>[]>): Promise<void> {
    let found: Map<K, V>;
    try {
      found = await fetch([...batch.keys()]);
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
      return;
    }
    for (const [key, waiters] of batch) {
      const value = found.has(key) ? (found.get(key) as V) : missing;
      for (const waiter of waiters) waiter.resolve(value);
    }
  }

  return {
    get(key) {
      return new Promise<V>((resolve, reject) => {
        if (waiting === undefined) {
          const batch = (waiting = new Map());
          setImmediate(() => {
            waiting = undefined;
            void run(batch);
          });
        }
        const waiters = waiting.get(key);
        if (waiters === undefined) waiting.set(key, [{ resolve, reject }]);
        else waiters.push({ resolve, reject });
      });
    },
  };
}
