/**
 * The PostgreSQL tables. Table and column names match the SQLite adapter's (most tables are
 * derived from the declarations of adapters/resources/, as SQLite's are). Tables are unqualified
 * on purpose: they resolve through `search_path`, so one database can hold several isolated
 * casekit schemas.
 */
import type { PgTable } from "drizzle-orm/pg-core";
import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { isoTimestamp, jsonb } from "./column-types.js";
import { tablesOf } from "../declare/table-parts.js";
import { declaredTables } from "../resources/tables.js";
import { pgTableOf } from "./declared-table.js";

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
} = tablesOf(declaredTables, (resource, references: Readonly<Record<string, PgTable>>) => pgTableOf(resource, references));

/**
 * The shared rate-limit store's state, one row per limited key (`key:<id>`, `source:<ip>`); see
 * rate-limit-store.ts. `expires_at` (epoch ms) is when the row no longer counts and may be swept.
 */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text("key").primaryKey(),
    state: jsonb("state"),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  },
  (t) => [index("rate_limits_expires_at_idx").on(t.expiresAt)],
);

/**
 * Live alerts counted per (organization, source, status, TLP, hour of createdAt), so alerts by
 * source sums a few counters instead of counting millions of rows. Migration 0005 keeps it exact
 * with triggers on `alerts` (every write path, in the writer's transaction); drizzle-kit knows
 * nothing of triggers, and test/conformance/alert-metric-migration.test.ts checks that they exist
 * once every migration has run. A counter reaching 0 is deleted.
 */
export const alertSourceCounts = pgTable(
  "alert_source_counts",
  {
    organizationId: text("organization_id").notNull(),
    source: text("source").notNull(),
    statusValue: text("status_value").notNull(),
    tlp: integer("tlp").notNull(),
    /** The hour its alerts were created in: createdAt cut to the hour, in UTC. */
    bucket: isoTimestamp("bucket").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ name: "alert_source_counts_pk", columns: [t.organizationId, t.source, t.statusValue, t.tlp, t.bucket] })],
);
