import { DrizzleQueryError } from "drizzle-orm";
import pg from "pg";
import { CaseKitError } from "../../core/errors.js";
import { uniqueViolationCode } from "./dialect.js";

/**
 * The port's error rule for what reaches the storage unworded: a unique violation becomes
 * `CaseKitError("conflict")` (a declared key's clash is worded by its declaration before it gets
 * here), every other failure passes on untranslated, but never with SQL in its message. drizzle
 * (the migrator) wraps driver errors in a `DrizzleQueryError` whose message quotes the statement
 * and its parameters, so the driver's own error (the server's message, which does not quote the
 * query) is what travels on.
 */
export function translateError(error: unknown): unknown {
  if (error instanceof DrizzleQueryError && error.cause === undefined) return new Error("casekit: a database query failed");
  const cause = error instanceof DrizzleQueryError ? error.cause : error;
  if (cause instanceof pg.DatabaseError && cause.code === uniqueViolationCode) {
    return new CaseKitError("conflict", `A record with ${cause.constraint?.endsWith("_pkey") ? "this id" : "these values"} already exists`);
  }
  return cause;
}
