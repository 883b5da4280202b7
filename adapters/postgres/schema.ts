/**
 * The PostgreSQL tables. Table and column names match the SQLite adapter's so that the shared
 * row mappers and the conformance suite see one shape. Tables are unqualified on purpose: they
 * resolve through `search_path`, so one database can hold several isolated casekit schemas.
 */
import { bigint, foreignKey, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { CaseTag } from "../../core/cases/types.js";
import type { JsonValue } from "../shared/values.js";
import { isoTimestamp, jsonb, sortableId } from "./column-types.js";
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
import { pgTableOf } from "./declared-table.js";

/** Declared once in adapters/resources/organizations.ts (with the case and TLP audit counters). */
export const organizations = pgTableOf(organizationResource);

/** Declared once in adapters/resources/users.ts. */
export const users = pgTableOf(userResource, { organizations });

/** Declared once in adapters/resources/api-keys.ts. */
export const apiKeys = pgTableOf(apiKeyResource, { organizations, users });

export const cases = pgTable(
  "cases",
  {
    id: sortableId("id").primaryKey(),
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
    tags: jsonb("tags").$type<JsonValue<CaseTag[]>>().notNull(),
    teams: jsonb("teams").$type<JsonValue<{ id: string }[]>>().notNull(),
    organizations: jsonb("organizations").$type<JsonValue<string[]>>().notNull(),
    customFields: jsonb("custom_fields").$type<JsonValue<Record<string, unknown>>>().notNull(),
    closedAt: isoTimestamp("closed_at"),
    createdAt: isoTimestamp("created_at").notNull(),
    updatedAt: isoTimestamp("updated_at").notNull(),
    createdBy: text("created_by"),
  },
  (t) => [
    foreignKey({ name: "cases_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    uniqueIndex("cases_organization_id_number_unique").on(t.organizationId, t.number),
    // Keyset lists run newest first inside one organization, optionally narrowed by one of these.
    index("cases_organization_id_idx").on(t.organizationId, t.id),
    index("cases_organization_id_status_value_idx").on(t.organizationId, t.statusValue, t.id),
    index("cases_organization_id_severity_idx").on(t.organizationId, t.severity, t.id),
    index("cases_organization_id_assignee_id_idx").on(t.organizationId, t.assigneeId, t.id),
    // `tag` filters use jsonb containment (tags @> '[{"name": …}]'), which jsonb_path_ops serves.
    index("cases_tags_idx").using("gin", t.tags.op("jsonb_path_ops")),
  ],
);

export const auditLog = pgTable(
  "audit_log",
  {
    id: sortableId("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    actorUserId: text("actor_user_id"),
    actorKeyId: text("actor_key_id"),
    action: text("action").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    changes: jsonb("changes").$type<JsonValue<Record<string, { from: unknown; to: unknown }>>>(),
    requestId: text("request_id"),
    ip: text("ip"),
    userAgent: text("user_agent"),
    at: isoTimestamp("at").notNull(),
    /** The bulk request this entry is one record of, or null. */
    bulkRequestId: text("bulk_request_id"),
  },
  (t) => [
    foreignKey({ name: "audit_log_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    index("audit_log_organization_id_idx").on(t.organizationId, t.id),
  ],
);

/** The transactional outbox, declared once in adapters/resources/events.ts. */
export const events = pgTableOf(eventResource, { organizations });

/** Declared once in adapters/resources/teams.ts. */
export const teams = pgTableOf(teamResource, { organizations });

/**
 * The TLP audit log: append-only (migration 0001 installs triggers refusing UPDATE, DELETE and
 * TRUNCATE, which drizzle-kit does not model) and hash-chained per organization; the chain's head
 * is `organizations.tlp_audit_seq` / `tlp_audit_hash`.
 */
export const tlpAuditLog = pgTable(
  "tlp_audit_log",
  {
    id: sortableId("id").primaryKey(),
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
    at: isoTimestamp("at").notNull(),
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
