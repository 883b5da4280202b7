/**
 * What the `casekit` command prints for a failure: the error's own words, and for the failures
 * an operator meets first (a database that does not answer or refuses the login, a missing
 * database or a missing right) what to check. Never a stack trace, never a password.
 */
import { DrizzleQueryError } from "drizzle-orm";
import { isCaseKitError } from "../core/index.js";

/** Database URLs may carry a password: never print it. */
export function redact(database: string): string {
  return database.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
}

interface CodedError {
  code?: string;
  message?: string;
  address?: string;
  port?: number;
  hostname?: string;
}

/**
 * The driver's error: the error itself, or the one behind drizzle's DrizzleQueryError. Other
 * wrappers (listen.ts's bind failure, say) have worded their cause already and keep their words.
 */
function codedCause(error: unknown): CodedError | undefined {
  const driver = error instanceof DrizzleQueryError ? error.cause : error;
  return driver && typeof (driver as CodedError).code === "string" ? (driver as CodedError) : undefined;
}

/** What to check for a PostgreSQL connection or permission failure; undefined for any other error. */
export function databaseAdvice(error: unknown): string | undefined {
  const cause = codedCause(error);
  if (!cause) return undefined;
  const message = redact(cause.message ?? "");
  switch (cause.code) {
    case "ECONNREFUSED":
      return `nothing answers at ${cause.address ?? "the database host"}:${cause.port ?? "?"} (${message}): is PostgreSQL running there, and are the host and port in the database URL right?`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `the database host ${cause.hostname ?? ""} does not resolve (${message}): check the host name in the database URL`;
    case "ETIMEDOUT":
      return `the database did not answer in time (${message}): check the host and port in the URL, and that no firewall drops the connection`;
    case "28P01":
    case "28000":
      return `PostgreSQL refused the login: ${message}. Check the user name and password in the database URL, and that pg_hba.conf admits this user from this host`;
    case "3D000":
      return `${message}: create it (createdb <name>, or CREATE DATABASE) or fix the database name at the end of the URL`;
    case "42501":
      return `${message}: the URL's user lacks a right casekit needs. To create tables it needs CREATE on the schema (GRANT CREATE ON SCHEMA <schema> TO <user>); to create a new schema (--schema, CASEKIT_SCHEMA), CREATE on the database (GRANT CREATE ON DATABASE <database> TO <user>)`;
    case "3F000":
      return `${message}: create the schema, or name an existing one with --schema (CASEKIT_SCHEMA)`;
    case "57P03":
      return `${message}: PostgreSQL is starting or shutting down; try again in a moment`;
    case "SQLITE_CANTOPEN":
      return `${message}: check that the database file's folder exists and that this user may read and write it`;
    case "SQLITE_BUSY":
      return `${message}: another process holds the SQLite file (a casekit copy in progress?); wait for it to end`;
    default:
      return undefined;
  }
}

/** One line for an error: what happened, and what to do where that is known. */
export function describeError(error: unknown): string {
  const advice = databaseAdvice(error);
  if (advice) return advice;
  if (isCaseKitError(error)) return error.errors?.length ? `${error.message} (${error.errors.map((e) => `${e.path}: ${e.message}`).join("; ")})` : error.message;
  if (error instanceof Error) return redact(error.message);
  return String(error);
}
