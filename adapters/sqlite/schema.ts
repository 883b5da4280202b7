/**
 * The SQLite tables: the source drizzle-kit generates migrations from. Table and column names
 * match the PostgreSQL adapter's (adapters/postgres/schema.ts): most tables are derived from the
 * declarations of adapters/resources/, as PostgreSQL's are.
 *
 * Timestamps are ISO 8601 UTC text with milliseconds (`2026-01-01T00:00:00.000Z`): that form sorts
 * as text in time order, so range filters and indexes work on it directly. JSON values are text.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { alertResource } from "../resources/alerts.js";
import { apiKeyResource } from "../resources/api-keys.js";
import { auditResource } from "../resources/audit.js";
import { caseResource } from "../resources/cases.js";
import { commentResource } from "../resources/comments.js";
import { eventResource } from "../resources/events.js";
import { observableResource } from "../resources/observables.js";
import { organizationResource } from "../resources/organizations.js";
import { sessionResource } from "../resources/sessions.js";
import { signInThrottleResource } from "../resources/sign-in-throttles.js";
import { taskResource } from "../resources/tasks.js";
import { teamResource } from "../resources/teams.js";
import { tlpAuditResource } from "../resources/tlp-audit.js";
import { userResource } from "../resources/users.js";
import { attemptResource } from "../resources/webhook-attempts.js";
import { deliveryResource } from "../resources/webhook-deliveries.js";
import { webhookResource } from "../resources/webhooks.js";
import { sqliteTableOf } from "./declared-table.js";

const timestamp = (name: string) => text(name);

/** Declared once in adapters/resources/organizations.ts (with the case and TLP audit counters). */
export const organizations = sqliteTableOf(organizationResource);

/** Declared once in adapters/resources/users.ts. */
export const users = sqliteTableOf(userResource, { organizations });

/** Declared once in adapters/resources/api-keys.ts. */
export const apiKeys = sqliteTableOf(apiKeyResource, { organizations, users });

/** Declared once in adapters/resources/cases.ts. */
export const cases = sqliteTableOf(caseResource, { organizations });

/** Declared once in adapters/resources/audit.ts. */
export const auditLog = sqliteTableOf(auditResource, { organizations });

/** The transactional outbox, declared once in adapters/resources/events.ts. */
export const events = sqliteTableOf(eventResource, { organizations });

/** Declared once in adapters/resources/teams.ts. */
export const teams = sqliteTableOf(teamResource, { organizations });

/**
 * Declared once in adapters/resources/tlp-audit.ts. Append-only: migration 0001 adds triggers
 * refusing UPDATE and DELETE, which drizzle-kit does not model. A later migration that rebuilds
 * this table (SQLite's way of altering a column) would drop them: the SQLite tests check that they
 * exist once every migration has run.
 */
export const tlpAuditLog = sqliteTableOf(tlpAuditResource, { organizations });

/** Declared once in adapters/resources/sessions.ts. */
export const sessions = sqliteTableOf(sessionResource, { organizations, users });

/** Declared once in adapters/resources/sign-in-throttles.ts. */
export const signInThrottles = sqliteTableOf(signInThrottleResource);

// ---------------------------------------------------------------------------------------------
// Triage records (issue: alerts, tasks, observables, bulk). Soft-deleted rows keep their data and
// carry deleted_at / deleted_by; every read path filters them out unless it asks for them.
// ---------------------------------------------------------------------------------------------

/** Declared once in adapters/resources/alerts.ts. */
export const alerts = sqliteTableOf(alertResource, { organizations });

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

/** Declared once in adapters/resources/tasks.ts. */
export const tasks = sqliteTableOf(taskResource, { organizations, cases });

/** Declared once in adapters/resources/observables.ts. */
export const observables = sqliteTableOf(observableResource, { organizations, cases, alerts });

/** Declared once in adapters/resources/comments.ts. */
export const comments = sqliteTableOf(commentResource, { organizations });

// ---------------------------------------------------------------------------------------------
// Webhooks (issue: webhooks). Secrets and authConfig values are sealed by the core before they
// get here; deliveries are the outbox's second half, attempts their history.
// ---------------------------------------------------------------------------------------------

/** Declared once in adapters/resources/webhooks.ts. */
export const webhooks = sqliteTableOf(webhookResource, { organizations });

/** Declared once in adapters/resources/webhook-deliveries.ts. */
export const webhookDeliveries = sqliteTableOf(deliveryResource, { organizations, webhooks, events });

/** Declared once in adapters/resources/webhook-attempts.ts. */
export const webhookAttempts = sqliteTableOf(attemptResource, { organizations, webhook_deliveries: webhookDeliveries });
