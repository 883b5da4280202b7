import { DrizzleQueryError } from "drizzle-orm";
import pg from "pg";
import { uniqueViolation } from "../shared/conflicts.js";
import { uniqueViolationCode } from "./dialect.js";

/**
 * The port's error rule: a unique violation becomes `CaseKitError("conflict")` (worded by the
 * shared table, from the constraint's name), every other failure passes on untranslated, but
 * never with SQL in its message. drizzle wraps driver errors in a `DrizzleQueryError` whose
 * message quotes the statement and its parameters, so the driver's own error (the server's
 * message, which does not quote the query) is what travels on.
 */
export function translateError(error: unknown): unknown {
  if (error instanceof DrizzleQueryError && error.cause === undefined) return new Error("casekit: a database query failed");
  const cause = error instanceof DrizzleQueryError ? error.cause : error;
  if (cause instanceof pg.DatabaseError && cause.code === uniqueViolationCode) {
    return uniqueViolation({ table: cause.table, constraint: cause.constraint });
  }
  return cause;
}

/** Awaits one statement, translating its failure. */
export async function guard<T>(statement: PromiseLike<T>): Promise<T> {
  try {
    return await statement;
  } catch (error) {
    throw translateError(error);
  }
}
