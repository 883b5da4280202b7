/**
 * The SQLite tables: the source drizzle-kit generates migrations from. Table and column names
 * match the PostgreSQL adapter's (adapters/postgres/schema.ts) and the shared row shapes
 * (adapters/shared/rows.ts), so one set of row mappers serves both dialects.
 *
 * Timestamps are ISO 8601 UTC text with milliseconds (`2026-01-01T00:00:00.000Z`): that form sorts
 * as text in time order, so range filters and indexes work on it directly. JSON values are text.
 */
import { foreignKey, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { CaseTag } from "../../core/cases/types.js";
import { alertResource } from "../resources/alerts.js";
import { apiKeyResource } from "../resources/api-keys.js";
import { commentResource } from "../resources/comments.js";
import { eventResource } from "../resources/events.js";
import { observableResource } from "../resources/observables.js";
import { organizationResource } from "../resources/organizations.js";
import { sessionResource } from "../resources/sessions.js";
import { signInThrottleResource } from "../resources/sign-in-throttles.js";
import { taskResource } from "../resources/tasks.js";
import { teamResource } from "../resources/teams.js";
import { userResource } from "../resources/users.js";
import { attemptResource } from "../resources/webhook-attempts.js";
import { deliveryResource } from "../resources/webhook-deliveries.js";
import { webhookResource } from "../resources/webhooks.js";
import { sqliteTableOf } from "./declared-table.js";

const timestamp = (name: string) => text(name);
const json = <T>(name: string) => text(name, { mode: "json" }).$type<T>();

/** Declared once in adapters/resources/organizations.ts (with the case and TLP audit counters). */
export const organizations = sqliteTableOf(organizationResource);

/** Declared once in adapters/resources/users.ts. */
export const users = sqliteTableOf(userResource, { organizations });

/** Declared once in adapters/resources/api-keys.ts. */
export const apiKeys = sqliteTableOf(apiKeyResource, { organizations, users });

export const cases = sqliteTable(
  "cases",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    number: integer("number").notNull(),
    title: text("title").notNull(),
    severity: integer("severity").notNull(),
    description: text("description"),
    tlp: integer("tlp").notNull(),
    pap: integer("pap").notNull(),
    statusValue: text("status_value").notNull(),
    typeValue: text("type_value"),
    assigneeId: text("assignee_id"),
    clientId: text("client_id"),
    source: text("source"),
    sourceRef: text("source_ref"),
    tags: json<CaseTag[]>("tags").notNull(),
    teams: json<{ id: string }[]>("teams").notNull(),
    organizations: json<string[]>("organizations").notNull(),
    customFields: json<Record<string, unknown>>("custom_fields").notNull(),
    closedAt: timestamp("closed_at"),
    createdAt: timestamp("created_at").notNull(),
    updatedAt: timestamp("updated_at").notNull(),
    createdBy: text("created_by"),
  },
  (t) => [
    foreignKey({ name: "cases_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    uniqueIndex("cases_organization_id_number_unique").on(t.organizationId, t.number),
    // Keyset lists run newest first (id DESC) inside one organization, optionally narrowed by
    // one of these; with one value per filter, SQLite walks the index backwards without sorting.
    index("cases_organization_id_idx").on(t.organizationId, t.id),
    index("cases_organization_id_status_value_idx").on(t.organizationId, t.statusValue, t.id),
    index("cases_organization_id_severity_idx").on(t.organizationId, t.severity, t.id),
    index("cases_organization_id_assignee_id_idx").on(t.organizationId, t.assigneeId, t.id),
  ],
);

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    actorUserId: text("actor_user_id"),
    actorKeyId: text("actor_key_id"),
    action: text("action").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    changes: json<Record<string, { from: unknown; to: unknown }>>("changes"),
    requestId: text("request_id"),
    ip: text("ip"),
    userAgent: text("user_agent"),
    at: timestamp("at").notNull(),
    /** The bulk request this entry is one record of, or null. */
    bulkRequestId: text("bulk_request_id"),
  },
  (t) => [
    foreignKey({ name: "audit_log_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    index("audit_log_organization_id_idx").on(t.organizationId, t.id),
  ],
);

/** The transactional outbox, declared once in adapters/resources/events.ts. */
export const events = sqliteTableOf(eventResource, { organizations });

/** Declared once in adapters/resources/teams.ts. */
export const teams = sqliteTableOf(teamResource, { organizations });

/**
 * The TLP audit log: hash-chained per organization (seq 1, 2, 3 …; the head lives in
 * organizations.tlp_audit_seq / tlp_audit_hash) and append-only: migration 0001 adds triggers
 * that refuse UPDATE and DELETE. drizzle-kit knows nothing of triggers, and a later migration that
 * rebuilds this table (SQLite's way of altering a column) would drop them: the SQLite tests check
 * that they exist once every migration has run.
 */
export const tlpAuditLog = sqliteTable(
  "tlp_audit_log",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    seq: integer("seq").notNull(),
    actorUserId: text("actor_user_id"),
    actorKeyId: text("actor_key_id"),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    action: text("action").notNull(),
    tlpBefore: integer("tlp_before"),
    tlpAfter: integer("tlp_after"),
    outcome: text("outcome").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    requestId: text("request_id"),
    at: timestamp("at").notNull(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [
    foreignKey({ name: "tlp_audit_log_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    uniqueIndex("tlp_audit_log_organization_id_seq_unique").on(t.organizationId, t.seq),
    index("tlp_audit_log_organization_id_idx").on(t.organizationId, t.id),
    index("tlp_audit_log_organization_id_resource_id_idx").on(t.organizationId, t.resourceId, t.id),
  ],
);

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
