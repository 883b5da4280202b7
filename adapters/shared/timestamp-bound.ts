import { invalidField } from "../../core/errors.js";
import { toIsoTimestamp } from "./values.js";

/** A timestamp filter bound in canonical ISO form, so it compares as stored; a non-date is 400 on that field. */
export function timestampBound(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return toIsoTimestamp(value);
  } catch {
    throw invalidField(name, "must be an ISO 8601 date-time");
  }
}
