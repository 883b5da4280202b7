import Database from "better-sqlite3";
import { uniqueViolation } from "../shared/conflicts.js";

const uniqueCodes = new Set(["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"]);

/**
 * Unique-constraint violations become `CaseKitError("conflict")` worded for people; everything
 * else is returned untouched (the port translates nothing else). SQLite reports the key as
 * `UNIQUE constraint failed: cases.organization_id, cases.number`; only the table and column
 * names are read from it, and none of its text reaches the new error.
 */
export function translateError(error: unknown): unknown {
  if (!(error instanceof Database.SqliteError) || !uniqueCodes.has(error.code)) return error;
  const at = error.message.indexOf(": ");
  const qualified = at < 0 ? [] : error.message.slice(at + 2).split(", ");
  const table = qualified[0]?.split(".")[0];
  const columns = qualified.map((name) => name.slice(name.indexOf(".") + 1));
  return uniqueViolation({ table, columns });
}
