/**
 * The access version suite on PostgreSQL: three casekit instances (three pools, as three hosts
 * would run) on one schema; test/conformance/access-version-suite.ts says what it proves. Same
 * server and CI rule as the PostgreSQL conformance suite: with CI=true an unreachable server fails
 * the run.
 */
import pg from "pg";
import { afterAll, afterEach } from "vitest";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import type { Storage } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { describeAccessVersion } from "./access-version-suite.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";

const run = await postgresShouldRun("postgres access version");
const schema = freshSchemaName("casekit_access");
const open: { close(): Promise<unknown> }[] = [];
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

describeAccessVersion(
  "PostgreSQL, three pools on one schema",
  async () => {
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
        const kits = [];
        // One after another: the first creates the schema, the others find it migrated.
        for (const accessCacheEntries of [10_000, 10_000, 0]) {
          const storage: Storage = createPostgresStorage({ connectionString: postgresUrl, schema, max: 4 });
          open.push(storage);
          await storage.migrate();
          kits.push(createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret }, accessCacheEntries }));
        }
        return kits;
      },
    };
  },
  { skip: !run },
);
