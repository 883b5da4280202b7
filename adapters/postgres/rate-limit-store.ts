import pg from "pg";
import type { LimiterState } from "../../core/limits/limiter.js";
import type { RateLimitStore } from "../../core/ports/rate-limit-store.js";
import { sendQuery } from "./send-query.js";

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

const schemaNamePattern = /^[a-z_][a-z0-9_]*$/;
/** A state carries nothing the limiter still counts this long after its last reset time. */
const retentionMs = 61 * 60_000;

/**
 * The shared rate-limit store: one row per key in PostgreSQL, read and written under a row lock,
 * so every host behind a load balancer spends from one budget per key. Reachability failures
 * reject, and the limiter applies its configured failure mode.
 */
export function createPostgresRateLimitStore(options: PostgresRateLimitStoreOptions): RateLimitStore & { close(): Promise<void> } {
  const { schema } = options;
  if (schema !== undefined && !schemaNamePattern.test(schema)) throw new Error(`casekit: invalid schema name ${JSON.stringify(schema)}`);
  const owned = !("pool" in options);
  const pool = "pool" in options ? options.pool : new pg.Pool({ connectionString: options.connectionString, max: options.max });
  if (owned) pool.on("error", () => {});
  const now = options.now ?? Date.now;
  const sweepEvery = options.sweepEvery ?? 5_000;
  let updates = 0;
  const searchPath = schema ? `SET LOCAL search_path TO "${schema}"` : null;

  async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken = false;
    const onError = () => {
      broken = true;
    };
    client.on("error", onError);
    try {
      await sendQuery(client, "BEGIN");
      if (searchPath) await sendQuery(client, searchPath);
      const result = await work(client);
      await sendQuery(client, "COMMIT");
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

  return {
    async update(key, next) {
      const result = await inTransaction(async (client) => {
        await sendQuery(client, "INSERT INTO rate_limits (key, state, expires_at) VALUES ($1, NULL, 0) ON CONFLICT (key) DO NOTHING", [key]);
        const { rows } = await sendQuery<{ state: LimiterState | null }>(client, "SELECT state FROM rate_limits WHERE key = $1 FOR UPDATE", [key]);
        const { state, result } = next(rows[0]?.state ?? null);
        await sendQuery(client, "UPDATE rate_limits SET state = $2, expires_at = $3 WHERE key = $1", [key, JSON.stringify(state), Math.ceil(Math.max(state.tat, state.reset) + retentionMs)]);
        return result;
      });
      if (++updates % sweepEvery === 0) {
        await inTransaction((client) => sendQuery(client, "DELETE FROM rate_limits WHERE expires_at < $1", [now()]));
      }
      return result;
    },

    async peek(key) {
      const client = await pool.connect();
      try {
        if (searchPath) {
          await sendQuery(client, "BEGIN");
          await sendQuery(client, searchPath);
        }
        const { rows } = await sendQuery<{ state: LimiterState | null }>(client, "SELECT state FROM rate_limits WHERE key = $1", [key]);
        if (searchPath) await sendQuery(client, "COMMIT");
        return rows[0]?.state ?? null;
      } finally {
        client.release();
      }
    },

    async close() {
      if (owned) await pool.end();
    },
  };
}
