/**
 * `casekit serve` on a PostgreSQL database created for it (postgres.ts), with an organization and
 * its key: what the bench's PostgreSQL groups start from. The caller stops the server and drops
 * the database; if the start fails, the database is dropped here.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createBenchDatabase } from "./postgres.js";
import type { Organization, Running } from "./processes.js";
import { initOrganization, startServe } from "./processes.js";

export interface PostgresServe {
  database: { url: string; drop(): Promise<void> };
  organization: Organization;
  serve: Running;
}

/** `name` names its files in `dir`: `<name>-serve.log`, and with BENCH_KEEP `<name>.organization.json`. */
export async function servePostgres(dir: string, name: string): Promise<PostgresServe> {
  const database = await createBenchDatabase();
  try {
    const env = { CASEKIT_KEY_HASH_SECRET: randomBytes(32).toString("base64url") };
    const organization = initOrganization(database.url, "Postgres SOC", env);
    // A kept database is only usable with its key and the secret its keys are hashed with.
    if (process.env.BENCH_KEEP === "1") writeFileSync(join(dir, `${name}.organization.json`), JSON.stringify({ ...organization, url: database.url, env }), { mode: 0o600 });
    const serve = await startServe("serve (PostgreSQL)", database.url, { env, logFile: join(dir, `${name}-serve.log`) });
    return { database, organization, serve };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
