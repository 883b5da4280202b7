import type pg from "pg";

/**
 * Runs one statement on a connection through node-postgres's callback form, wrapped in a promise
 * of our own, instead of the promise `client.query` returns without a callback.
 *
 * Why, measured (2026-11-24, the custom-fields bench's kept 100 000-record schema, a fresh
 * process, 250-row pages one at a time, `--trace-gc-nvp`): with the driver's promise, about 60 %
 * of what was allocated between two young-generation collections was still reachable at the
 * second one (4–7 MB, what several queries allocate, all promoted and freed only by the next
 * full collection), so every scavenge paused the process 6–10 ms and the page's p99 was
 * 12 ms at a p50 of 2.4 ms. The same statements through the callback form: 0.7 MB survived, the
 * pauses were 1.5–3 ms and the p99 4.5 ms. `pool.query`, which uses the callback form inside,
 * behaves like the latter; a query object whose callback is set after it is built (as the
 * driver's promise form does) like the former. Nothing is retained after a full collection in
 * either form: the difference is only how long the rows stay reachable.
 */
export function sendQuery<R extends pg.QueryResultRow = Record<string, unknown>>(client: pg.ClientBase | pg.Pool, text: string, values?: readonly unknown[], name?: string): Promise<pg.QueryResult<R>> {
  return new Promise<pg.QueryResult<R>>((resolve, reject) => {
    client.query<R>({ text, values: values as unknown[] | undefined, name }, (error, result) => (error ? reject(error) : resolve(result)));
  }).catch((error: unknown) => {
    // A failure's stack would lead to the socket's read; retaken here, it leads back through the
    // awaiting callers (as the driver's own promise form does), which is what an unexpected
    // error's log line should show.
    if (error instanceof Error) Error.captureStackTrace(error);
    throw error;
  });
}
