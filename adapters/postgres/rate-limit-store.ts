import type pg from "pg";
import type { LimiterState } from "../../core/limits/limiter.js";
import { rememberBounded } from "../../core/bounded-map.js";
import type { RateLimitStore } from "../../core/ports/rate-limit-store.js";
import { sendQuery } from "./send-query.js";
import { checkedSchema, ignore, ownPool } from "./pools.js";

export type PostgresRateLimitStoreOptions = (
  | { connectionString: string; max?: number }
  | {
      /** A pool you own; `close()` leaves it open. */
      pool: pg.Pool;
    }
) & {
  /** Schema of casekit's tables (the `rate_limits` table ships with the migrations). */
  schema?: string;
  /** Epoch ms now, for sweeping expired rows; the wall clock by default. */
  now?: () => number;
  /** Expired rows are swept once every this many updates. */
  sweepEvery?: number;
};

/** A state carries nothing the limiter still counts this long after its last reset time. */
const retentionMs = 61 * 60_000;

/** An update asked for, and how to answer it. */
interface Queued {
  next: (state: LimiterState | null) => { state: LimiterState; result: unknown };
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/** States this host remembers (its own last write of each key), at most; past it the oldest go. */
const maxKnownStates = 10_000;

/**
 * The store's own pool. Its connections commit without waiting for the WAL to reach the disk
 * (`synchronous_commit = off`, set once per connection): every authenticated request commits a
 * rate-limit update, and beside a bulk that writes a lot of WAL, waiting for the flush made a
 * request's p99 on this store 15–34 ms. What it gives up: a crash of the PostgreSQL server can lose
 * the last moments of updates (at most three times `wal_writer_delay`, 600 ms by default), so a
 * key may spend those requests again. Nothing else: a commit is still atomic, and a state the host
 * remembers that the row lost is found by the compare-and-set, which then takes the row's lock.
 * A SET that fails leaves the connection committing as the server is configured. With a pool of
 * your own, its settings apply (give it `options: "-c synchronous_commit=off"` for the same).
 */
function storePool(connectionString: string, max: number | undefined): pg.Pool {
  // The pool waits for onConnect before it lends a new connection.
  return ownPool({ connectionString, max, onConnect: (client) => sendQuery(client, "SET synchronous_commit = off").then(ignore, ignore) });
}

/**
 * The shared rate-limit store: one row per key in PostgreSQL, so every host behind a load
 * balancer spends from one budget per key. Reachability failures reject, and the limiter applies
 * its configured failure mode.
 *
 * An update is first a compare-and-set, not a transaction around a row lock: the host remembers
 * the state it last wrote for a key, decides on it, and writes the new state only if the row
 * still holds that one (`UPDATE … WHERE state = $expected`): one statement. When the row holds
 * something else (another host wrote, or the row was swept) or nothing is remembered (a key's
 * first request on this host), nothing has been written, and the update runs under the row's
 * lock (BEGIN, an insert, SELECT … FOR UPDATE, UPDATE, COMMIT), which always makes progress. So
 * no two updates of a key both build on one state, as the port requires, and a host that is the
 * only one spending a key pays one statement a request instead of five (measured beside a
 * 100 000-alert bulk, a probe's p99 was 45–193 ms with five and 16–31 ms with the limiter in
 * memory). Updates of one key on one host wait for each other, so they never race each other.
 */
export function createPostgresRateLimitStore(options: PostgresRateLimitStoreOptions): RateLimitStore & { close(): Promise<void> } {
  const schema = checkedSchema(options.schema);
  const owned = !("pool" in options);
  const pool = "pool" in options ? options.pool : storePool(options.connectionString, options.max);
  const now = options.now ?? Date.now;
  const sweepEvery = options.sweepEvery ?? 5_000;
  let updates = 0;
  // Statements run outside any transaction, so the table is named with its schema.
  const table = schema ? `"${schema}".rate_limits` : "rate_limits";
  /** The state this host last wrote for each key. */
  const known = new Map<string, LimiterState>();
  /**
   * Per key with an update under way on this host: the updates asked for since it started. They
   * wait for it, then go together as one (see `update`).
   */
  const waiting = new Map<string, Queued[]>();

  /** A statement on any connection of the pool (outside a transaction). */
  const query = <R extends pg.QueryResultRow>(text: string, values: readonly unknown[]) => sendQuery<R>(pool, text, values);

  const expiryOf = (state: LimiterState): number => Math.ceil(Math.max(state.tat, state.reset) + retentionMs);

  /** The remembered state's compare-and-set; undefined when the row no longer holds it (or nothing is remembered). */
  async function compareAndSet<R>(key: string, next: (state: LimiterState | null) => { state: LimiterState; result: R }): Promise<{ result: R } | undefined> {
    const base = known.get(key);
    if (base === undefined) return undefined;
    const { state, result } = next(base);
    const written = await query(`UPDATE ${table} SET state = $2, expires_at = $3 WHERE key = $1 AND state = $4::jsonb`, [key, JSON.stringify(state), expiryOf(state), JSON.stringify(base)]);
    if (written.rowCount !== 1) return undefined;
    remember(key, state);
    return { result };
  }

  /** Under the row's lock: always makes progress, however busy the key is on other hosts. */
  async function locked<R>(key: string, next: (state: LimiterState | null) => { state: LimiterState; result: R }): Promise<R> {
    const client = await pool.connect();
    let broken = false;
    const onError = () => {
      broken = true;
    };
    client.on("error", onError);
    try {
      await sendQuery(client, "BEGIN");
      await sendQuery(client, `INSERT INTO ${table} (key, state, expires_at) VALUES ($1, NULL, 0) ON CONFLICT (key) DO NOTHING`, [key]);
      const { rows } = await sendQuery<{ state: LimiterState | null }>(client, `SELECT state FROM ${table} WHERE key = $1 FOR UPDATE`, [key]);
      const { state, result } = next(rows[0]?.state ?? null);
      await sendQuery(client, `UPDATE ${table} SET state = $2, expires_at = $3 WHERE key = $1`, [key, JSON.stringify(state), expiryOf(state)]);
      await sendQuery(client, "COMMIT");
      remember(key, state);
      return result;
    } catch (error) {
      await sendQuery(client, "ROLLBACK").catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.off("error", onError);
      client.release(broken);
    }
  }

  const remember = (key: string, state: LimiterState): void => rememberBounded(known, key, state, maxKnownStates);

  /** Writes `group`, then each group that gathered meanwhile, until none waits. */
  async function runGroups(key: string, group: Queued[]): Promise<void> {
    for (let current = group; current.length > 0; ) {
      // Pure, as the port requires of each `next`: the locked path may run it again on the row's state.
      const all = (state: LimiterState | null) => {
        const results: unknown[] = [];
        for (const queued of current) {
          const step = queued.next(state);
          state = step.state;
          results.push(step.result);
        }
        return { state: state!, result: results };
      };
      try {
        const results = (await compareAndSet(key, all))?.result ?? (await locked(key, all));
        current.forEach((queued, i) => queued.resolve(results[i]));
      } catch (error) {
        // A failed statement may or may not have been applied: read the row again next time.
        known.delete(key);
        for (const queued of current) queued.reject(error);
      }
      updates += current.length;
      if (updates >= sweepEvery) {
        updates = 0;
        await query(`DELETE FROM ${table} WHERE expires_at < $1`, [now()]).catch(() => undefined);
      }
      current = waiting.get(key) ?? [];
      if (current.length > 0) waiting.set(key, []);
    }
    waiting.delete(key);
  }

  return {
    // Every update is a statement away: the limiter starts it while the key is being checked.
    remote: true,

    /**
     * Updates of one key on this host never race each other: one waits for the one before it.
     * Those that arrive while one is under way go together as the next, in their order: their
     * `next`s run one after another on one state, and one statement (or one locked transaction)
     * writes the last state, so a key hammered from many connections pays a round trip per group,
     * not per request, and every request still gets the decision it would have got alone.
     */
    update<R>(key: string, next: (state: LimiterState | null) => { state: LimiterState; result: R }): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        const queued: Queued = { next, resolve: resolve as (result: unknown) => void, reject };
        const behind = waiting.get(key);
        if (behind !== undefined) {
          behind.push(queued);
          return;
        }
        waiting.set(key, []);
        void runGroups(key, [queued]);
      });
    },

    async peek(key) {
      const { rows } = await query<{ state: LimiterState | null }>(`SELECT state FROM ${table} WHERE key = $1`, [key]);
      return rows[0]?.state ?? null;
    },

    async close() {
      if (owned) await pool.end();
    },
  };
}
