/**
 * The SQLite tables: the source drizzle-kit generates migrations from. Table and column names
 * match the PostgreSQL adapter's (adapters/postgres/schema.ts): most tables are derived from the
 * declarations of adapters/resources/, as PostgreSQL's are.
 *
 * Timestamps are ISO 8601 UTC text with milliseconds (`2026-01-01T00:00:00.000Z`): that form sorts
 * as text in time order, so range filters and indexes work on it directly. JSON values are text.
 */
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { tablesOf } from "../declare/table-parts.js";
import { declaredTables } from "../resources/tables.js";
import { sqliteTableOf } from "./declared-table.js";

/** Every declared table (adapters/resources/tables.ts), derived from its declaration. */
export const {
  organizations,
  users,
  apiKeys,
  cases,
  auditLog,
  auditCheckpoints,
  events,
  teams,
  tlpAuditLog,
  sessions,
  signInThrottles,
  alerts,
  tasks,
  observables,
  comments,
  webhooks,
  webhookDeliveries,
  webhookAttempts,
  lifecycles,
  statusHistory,
  customFields,
  caseTypes,
  customFieldValues,
  logGroupItems,
  auditSinks,
  auditSinkCursors,
} = tablesOf(declaredTables, (resource, references: Readonly<Record<string, SQLiteTable>>) => sqliteTableOf(resource, references));

const timestamp = (name: string) => text(name);

/**
 * Live alerts counted per (organization, source, status, TLP, hour of createdAt), so alerts by
 * source sums a few counters instead of counting millions of rows. Migration 0004 keeps it exact
 * with triggers on `alerts` (every write path, in the writer's transaction) and makes it WITHOUT
 * ROWID (rows clustered by the key, the metric's order). drizzle-kit knows neither: a later
 * migration that rebuilds `alerts` or this table must create the triggers again, and
 * test/conformance/alert-metric-migration.test.ts checks that they exist once every migration has
 * run. A counter reaching 0 is deleted.
 */
export const alertSourceCounts = sqliteTable(
  "alert_source_counts",
  {
    organizationId: text("organization_id").notNull(),
    source: text("source").notNull(),
    statusValue: text("status_value").notNull(),
    tlp: integer("tlp").notNull(),
    /** The hour its alerts were created in: createdAt cut to the hour (`2026-01-01T13:00:00.000Z`). */
    bucket: timestamp("bucket").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ name: "alert_source_counts_pk", columns: [t.organizationId, t.source, t.statusValue, t.tlp, t.bucket] })],
);
