/**
 * Column values both dialects share. SQLite hands back ISO text and JSON text; PostgreSQL hands
 * back `Date` (timestamptz) or ISO text (with a custom column type) and parsed objects (jsonb).
 * These functions accept either and return what the core's records promise.
 */

/** What a timestamp column may come back as. */
export type TimestampValue = string | Date;
/** What a JSON column may come back as: text (SQLite) or the parsed value (jsonb). */
export type JsonValue<T> = string | T;

const canonical = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The canonical form of an instant: ISO 8601 UTC with milliseconds, which sorts as text in time
 * order. Values already in that form pass through untouched (the common case, and cheap); other
 * ISO 8601 forms (no milliseconds, an offset) are converted. Throws RangeError on a non-date.
 */
export function toIsoTimestamp(value: TimestampValue): string {
  if (typeof value === "string") {
    if (canonical.test(value)) return value;
    const parsed = new Date(value);
    if (Number.isNaN(parsed.getTime())) throw new RangeError("casekit: not an ISO 8601 timestamp");
    return parsed.toISOString();
  }
  return value.toISOString();
}

export function toIsoTimestampOrNull(value: TimestampValue | null | undefined): string | null {
  return value === null || value === undefined ? null : toIsoTimestamp(value);
}

/** A JSON column's value as the core's type: parses text, passes parsed values through. */
export function fromJson<T>(value: JsonValue<T>): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

export function fromJsonOrNull<T>(value: JsonValue<T> | null | undefined): T | null {
  return value === null || value === undefined ? null : fromJson(value);
}

/** A value for a JSON column, as JSON text: both SQLite text and PostgreSQL jsonb accept it. */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

export function toJsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** Drivers may hand back `undefined` for a missing optional value; records carry `null`. */
export function orNull<T>(value: T | null | undefined): T | null {
  return value === undefined ? null : value;
}

/** `q` as a LIKE pattern matched literally: `%`, `_` and the escape character `\` escaped. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
