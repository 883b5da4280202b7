import { uniqueViolation } from "../shared/conflicts.js";
import { violatedKey } from "./dialect.js";

/**
 * Unique-constraint violations become `CaseKitError("conflict")` worded for people; everything
 * else is returned untouched (the port translates nothing else). None of SQLite's message text
 * reaches the new error (see violatedKey).
 */
export function translateError(error: unknown): unknown {
  const key = violatedKey(error);
  return key ? uniqueViolation(key) : error;
}
