/**
 * The PostgreSQL server the tests use, and the one rule for a missing server: with CI=true the
 * file runs (and fails), elsewhere it is skipped with a warning that says so.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const postgresUrl = process.env.CASEKIT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const inCi = process.env.CI === "true";

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Whether the file named `label` should run: the server answers, or CI demands it. */
export async function postgresShouldRun(label: string): Promise<boolean> {
  if (await postgresReachable()) return true;
  if (inCi) return true;
  console.warn(`[${label}] SKIPPED: PostgreSQL is unreachable; with CI=true this is a failure, not a skip.`);
  return false;
}

/** A schema name no other run uses (created by the storage's migrate, dropped by the test). */
export const freshSchemaName = (prefix: string): string => `${prefix}_${randomBytes(6).toString("hex")}`;
