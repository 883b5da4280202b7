/**
 * The PostgreSQL tables. Table and column names match the SQLite adapter's (most tables are
 * derived from the declarations of adapters/resources/, as SQLite's are). Tables are unqualified
 * on purpose: they resolve through `search_path`, so one database can hold several isolated
 * casekit schemas.
 */
import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { isoTimestamp, jsonb } from "./column-types.js";
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
import { pgTableOf } from "./declared-table.js";

/** Declared once in adapters/resources/organizations.ts (with the case and TLP audit counters). */
export const organizations = pgTableOf(organizationResource);

/** Declared once in adapters/resources/users.ts. */
export const users = pgTableOf(userResource, { organizations });

/** Declared once in adapters/resources/api-keys.ts. */
export const apiKeys = pgTableOf(apiKeyResource, { organizations, users });

/** Declared once in adapters/resources/cases.ts. */
export const cases = pgTableOf(caseResource, { organizations });

/** Declared once in adapters/resources/audit.ts. */
export const auditLog = pgTableOf(auditResource, { organizations });

/** The transactional outbox, declared once in adapters/resources/events.ts. */
export const events = pgTableOf(eventResource, { organizations });

/** Declared once in adapters/resources/teams.ts. */
export const teams = pgTableOf(teamResource, { organizations });

/**
 * Declared once in adapters/resources/tlp-audit.ts. Append-only: migration 0001 installs triggers
 * refusing UPDATE, DELETE and TRUNCATE, which drizzle-kit does not model.
 */
export const tlpAuditLog = pgTableOf(tlpAuditResource, { organizations });

/** Declared once in adapters/resources/sessions.ts. */
export const sessions = pgTableOf(sessionResource, { organizations, users });

/** Declared once in adapters/resources/sign-in-throttles.ts. */
export const signInThrottles = pgTableOf(signInThrottleResource);

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

// ---------------------------------------------------------------------------------------------
// Triage records (issue: alerts, tasks, observables, bulk). Soft-deleted rows keep their data and
// carry deleted_at / deleted_by; every read path filters them out unless it asks for them.
// ---------------------------------------------------------------------------------------------

/** Declared once in adapters/resources/alerts.ts. */
export const alerts = pgTableOf(alertResource, { organizations });

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

/** Declared once in adapters/resources/tasks.ts. */
export const tasks = pgTableOf(taskResource, { organizations, cases });

/** Declared once in adapters/resources/observables.ts. */
export const observables = pgTableOf(observableResource, { organizations, cases, alerts });

/** Declared once in adapters/resources/comments.ts. */
export const comments = pgTableOf(commentResource, { organizations });

// ---------------------------------------------------------------------------------------------
// Webhooks (issue: webhooks). Secrets and authConfig values are sealed by the core before they
// get here; deliveries are the outbox's second half, attempts their history.
// ---------------------------------------------------------------------------------------------

/** Declared once in adapters/resources/webhooks.ts. */
export const webhooks = pgTableOf(webhookResource, { organizations });

/** Declared once in adapters/resources/webhook-deliveries.ts. */
export const webhookDeliveries = pgTableOf(deliveryResource, { organizations, webhooks, events });

/** Declared once in adapters/resources/webhook-attempts.ts. */
export const webhookAttempts = pgTableOf(attemptResource, { organizations, webhook_deliveries: webhookDeliveries });
