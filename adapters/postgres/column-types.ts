/** The PostgreSQL column types casekit adds to drizzle's, used by schema.ts and declared-table.ts. */
import { customType } from "drizzle-orm/pg-core";
import type { JsonValue } from "../shared/values.js";
import { toIsoTimestamp } from "../shared/values.js";

/**
 * `timestamptz(3)` carried as an ISO 8601 UTC string both ways. PostgreSQL prints timestamps in
 * its own format and in the session's time zone; normalising on the way out keeps the records'
 * promise (ISO with milliseconds) whatever the connection's `TimeZone` is.
 */
export const isoTimestamp = customType<{ data: string; driverData: string | Date }>({
  dataType() {
    return "timestamp(3) with time zone";
  },
  toDriver(value) {
    return value;
  },
  fromDriver(value) {
    return toIsoTimestamp(value);
  },
});

/**
 * `jsonb` that takes JSON text as well as values: the shared row mappers write JSON text, which
 * drizzle's own `jsonb` would stringify a second time. node-postgres reads it back parsed. (None
 * of casekit's JSON columns holds a bare string, so text always means "already JSON".)
 */
export const jsonb = customType<{ data: JsonValue<unknown>; driverData: string }>({
  dataType() {
    return "jsonb";
  },
  toDriver(value) {
    return typeof value === "string" ? value : JSON.stringify(value);
  },
});

/**
 * Ids of the tables listed newest first. Keyset pagination compares ids, and the SQLite adapter
 * compares them byte by byte; the "C" collation gives PostgreSQL the same order whatever the
 * database's locale, and cheaper comparisons.
 */
export const sortableId = customType<{ data: string; driverData: string }>({
  dataType() {
    return 'text COLLATE "C"';
  },
});
