/**
 * Three casekit instances on one PostgreSQL schema (three pools, as three hosts would run), for
 * the suites that prove a cache's version is never stale across hosts (access, definitions).
 * Registers its own cleanup: the pools close after each test, the schema is dropped after all.
 */
import pg from "pg";
import { afterAll, afterEach } from "vitest";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import type { CaseKit, CaseKitOptions, Storage } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { fastPasswordHasher } from "./fast-passwords.js";
import { keyHashSecret } from "./kit.js";
import { freshSchemaName, postgresUrl } from "./postgres.js";

export interface SharedSchemaHosts {
  clock: ManualClock;
  param(n: number): string;
  raw(sql: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  /** The three kits, migrated one after another; `options(i)` sets host i's cache (the last one caches nothing). */
  hosts(): Promise<CaseKit[]>;
}

export function postgresSharedSchema(schemaPrefix: string, options: (host: number) => Partial<CaseKitOptions>): () => Promise<SharedSchemaHosts> {
  const schema = freshSchemaName(schemaPrefix);
  const open: Storage[] = [];
  let client: pg.Client | undefined;
  afterEach(async () => {
    await Promise.all(open.splice(0).map((storage) => storage.close()));
  });
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect().catch(() => {});
    await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
    await admin.end().catch(() => {});
    await client?.end().catch(() => {});
  });
  return async () => {
    const clock = new ManualClock("2026-03-01T12:00:00.000Z");
    if (!client) {
      client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
    }
    const raw = client;
    return {
      clock,
      param: (n) => `$${n}`,
      async raw(sql, params) {
        await raw.query(`set search_path to "${schema}"`);
        return (await raw.query(sql, params)).rows as Record<string, unknown>[];
      },
      async hosts() {
        const kits: CaseKit[] = [];
        // One after another: the first creates the schema, the others find it migrated.
        for (const host of [0, 1, 2]) {
          const storage = createPostgresStorage({ connectionString: postgresUrl, schema, max: 4 });
          open.push(storage);
          await storage.migrate();
          kits.push(createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret }, ...options(host) }));
        }
        return kits;
      },
    };
  };
}
