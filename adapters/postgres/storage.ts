import { drizzle } from "drizzle-orm/node-postgres";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type pg from "pg";
import { CaseKitError } from "../../core/errors.js";
import type { Storage, StorageStats, TransactionOptions, UnitOfWork } from "../../core/ports/storage.js";
import { resolveMigrationsFolder } from "../shared/migrations-folder.js";
import { postgresDialect, postgresExecutor } from "./dialect.js";
import { translateError } from "./errors.js";
import { sendQuery } from "./send-query.js";
import { checkedSchema, ownPool } from "./pools.js";
import { migrateSchema } from "./migrate.js";
import { createUnitOfWork } from "../resources/unit-of-work.js";
import type { UnitState } from "../shared/unit-state.js";
import { finishUnit } from "../shared/unit-state.js";
import { perTurn } from "../shared/per-turn.js";
import { ShortUnitsFirst } from "../shared/short-units-first.js";

interface CommonOptions {
  /**
   * Schema holding casekit's tables, created by `migrate()` if missing; it must match
   * `^[a-z_][a-z0-9_]*$`. Without it, tables live in the connection's current schema (the first
   * existing one on its search_path, usually `public`).
   */
  schema?: string;
  /** Where the migrations are; found next to the package by default (see resolveMigrationsFolder). */
  migrationsFolder?: string;
  /**
   * The longest (ms) a long unit's statement (a selectAll bulk's) waits while other units are in
   * flight (../shared/short-units-first.ts); 20 by default, 0 never waits.
   */
  giveWayMs?: number;
}

export type PostgresStorageOptions =
  | (CommonOptions & {
      /** `postgres://…`; the adapter creates the pool and ends it on `close()`. */
      connectionString: string;
      /** Most connections the pool opens (pg's default: 10). */
      max?: number;
    })
  | (CommonOptions & {
      /**
       * A pool you own; `close()` leaves it open. With `schema`, the adapter sets `search_path`
       * on each connection it borrows, and the setting stays with the connection: give casekit a
       * pool of its own if other code relies on the default search_path.
       */
      pool: pg.Pool;
    });

/**
 * The schema each connection's search_path was last set to by casekit, shared by every storage
 * in the process, so two storages on one borrowed pool with different schemas each set theirs.
 */
const searchPaths = new WeakMap<pg.PoolClient, string>();

/**
 * The storage port on PostgreSQL, through node-postgres and drizzle.
 *
 * Every unit of work runs on one pooled connection: `transaction` between BEGIN and COMMIT (or
 * ROLLBACK when `work` throws), `read` outside any transaction, so each statement sees only
 * committed data. Concurrent units use different connections and never see each other's
 * uncommitted writes. `migrate()` is safe from several processes at once (see migrateSchema).
 */
export function createPostgresStorage(options: PostgresStorageOptions): Storage {
  const schema = checkedSchema(options.schema);
  /** Long units (bulks) give way to the others: their statements and breathers wait while short work is in flight. */
  const shortFirst = new ShortUnitsFirst(options.giveWayMs);
  const giveWay = options.giveWayMs === 0 ? undefined : () => shortFirst.turn();
  // Short work is counted only when long units give way to it: with giveWayMs 0 nobody asks.
  const short = giveWay === undefined ? <T>(work: () => Promise<T>): Promise<T> => work() : <T>(work: () => Promise<T>): Promise<T> => shortFirst.short(work);
  const owned = !("pool" in options);
  const pool = "pool" in options ? options.pool : ownPool({ connectionString: options.connectionString, max: options.max });

  const organizationsTable = schema === undefined ? "organizations" : `"${schema}".organizations`;
  const accessVersionsText = `SELECT id, access_version FROM ${organizationsTable} WHERE id = ANY($1::text[])`;
  const versionsPerTurn = perTurn<string, number | null>(async (organizationIds) => {
    try {
      const { rows } = await sendQuery<{ id: string; access_version: number | string }>(pool, accessVersionsText, [organizationIds]);
      return new Map(rows.map((row) => [row.id, Number(row.access_version)]));
    } catch (error) {
      throw translateError(error);
    }
  }, null);
  const pingsPerTurn = perTurn<"ping", true>(async () => {
    await withConnection((client) => sendQuery(client, "select 1"));
    return new Map([["ping", true]]);
  }, true);

  /** One drizzle instance per connection (for the migrator): pg reuses connection objects, so this stays small. */
  const databases = new WeakMap<pg.PoolClient, NodePgDatabase>();
  let closing: Promise<void> | undefined;

  const ensureOpen = (): void => {
    if (closing !== undefined) throw new CaseKitError("unavailable", "The storage is closed");
  };

  async function prepare(client: pg.PoolClient): Promise<void> {
    if (schema === undefined || searchPaths.get(client) === schema) return;
    await sendQuery(client, "select set_config('search_path', $1, false)", [`"${schema}"`]);
    searchPaths.set(client, schema);
  }

  function databaseOf(client: pg.PoolClient): NodePgDatabase {
    let db = databases.get(client);
    if (!db) {
      db = drizzle({ client });
      databases.set(client, db);
    }
    return db;
  }

  /**
   * Lends `use` one prepared connection and takes it back. `use` calls `discard` when it leaves
   * the session in an unknown state (a failed ROLLBACK), and so does a connection error, so the
   * connection is closed instead of pooled.
   */
  async function withConnection<T>(use: (client: pg.PoolClient, discard: (reason: unknown) => void) => Promise<T>): Promise<T> {
    ensureOpen();
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw translateError(error);
    }
    let discarded: Error | undefined;
    const discard = (reason: unknown) => {
      discarded = reason instanceof Error ? reason : new Error("casekit: connection discarded");
    };
    // pg emits a lent connection's failures between queries (the server went away while `work`
    // awaited something else) as an 'error' event, which would crash the process unheard.
    client.on("error", discard);
    try {
      try {
        await prepare(client);
      } catch (error) {
        discard(error);
        throw error;
      }
      return await use(client, discard);
    } catch (error) {
      throw translateError(error);
    } finally {
      client.off("error", discard);
      client.release(discarded);
    }
  }

  async function runUnit<T>(client: pg.PoolClient, unit: UnitState, work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
    try {
      const result = await work(createUnitOfWork(postgresDialect, postgresExecutor(client, unit.giveWay), unit));
      await finishUnit(unit);
      return result;
    } finally {
      unit.open = false;
    }
  }

  return {
    transaction<T>(work: (tx: UnitOfWork) => Promise<T>, unitOptions?: TransactionOptions): Promise<T> {
      const long = unitOptions?.long === true;
      const unit = () =>
        withConnection(async (client, discard) => {
          await sendQuery(client, "begin");
          let result: T;
          try {
            result = await runUnit(client, long && giveWay ? { open: true, writable: true, giveWay } : { open: true, writable: true }, work);
          } catch (error) {
            await sendQuery(client, "rollback").catch(discard);
            throw error;
          }
          await sendQuery(client, "commit");
          return result;
        });
      return long ? unit() : short(unit);
    },

    read<T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
      return short(() => withConnection((client) => runUnit(client, { open: true, writable: false }, work)));
    },

    /**
     * Read on every authenticated request: one statement on any pooled connection, outside a
     * transaction (so the last committed version), without a unit of work or a borrowed
     * connection around it, for every request of one event-loop turn (../shared/per-turn.ts: sent
     * after they all arrived, so it sees every commit that finished before any of them did). The
     * table is named with its schema: a pooled connection's search_path is set only when a unit
     * borrows it.
     */
    async accessVersion(organizationId: string): Promise<number | null> {
      ensureOpen();
      return short(() => versionsPerTurn.get(organizationId));
    },

    migrate(): Promise<void> {
      const migrationsFolder = options.migrationsFolder ?? resolveMigrationsFolder("postgres");
      return withConnection((client) => migrateSchema(client, databaseOf(client), { schema, migrationsFolder }));
    },

    /** Every ping of one event-loop turn (each `GET /health`) answered by one `select 1` sent after they all arrived (../shared/per-turn.ts). */
    async ping(): Promise<void> {
      await pingsPerTurn.get("ping");
    },

    stats(): StorageStats {
      return { pool: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } };
    },

    close(): Promise<void> {
      // pg's end() waits for borrowed connections to come back, so units in flight finish.
      closing ??= owned ? pool.end() : Promise.resolve();
      return closing;
    },
  };
}
