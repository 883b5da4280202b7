/**
 * The PostgreSQL tables. Table and column names match the SQLite adapter's so that the shared
 * row mappers and the conformance suite see one shape. Tables are unqualified on purpose: they
 * resolve through `search_path`, so one database can hold several isolated casekit schemas.
 */
import { sql } from "drizzle-orm";
import { bigint, doublePrecision, foreignKey, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { CaseTag } from "../../core/cases/types.js";
import type { OrganizationPolicy } from "../../core/organizations/policy.js";
import type { Scope } from "../../core/access/scopes.js";
import type { WebhookFilters } from "../../core/webhooks/filters.js";
import type { JsonValue } from "../shared/values.js";
import { isoTimestamp, jsonb, sortableId } from "./column-types.js";
import { commentResource } from "../resources/comments.js";
import { observableResource } from "../resources/observables.js";
import { taskResource } from "../resources/tasks.js";
import { teamResource } from "../resources/teams.js";
import { pgTableOf } from "./declared-table.js";

export const organizations = pgTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique("organizations_name_unique"),
  /** The organization's settings as JSON; null until first set (the mapper fills in defaults). */
  policy: jsonb("policy").$type<JsonValue<Partial<OrganizationPolicy>>>(),
  /** The last case number handed out (OrganizationRepository.nextCaseNumber). */
  caseSeq: integer("case_seq").notNull().default(0),
  /** The TLP audit chain's head: its last seq and hash (TlpAuditRepository.head). */
  tlpAuditSeq: integer("tlp_audit_seq").notNull().default(0),
  tlpAuditHash: text("tlp_audit_hash").notNull().default(""),
  createdAt: isoTimestamp("created_at").notNull(),
  updatedAt: isoTimestamp("updated_at").notNull(),
});

export const users = pgTable(
  "users",
  {
    /** "C" since 0001, when users began to be listed newest first (0000 had the default collation). */
    id: sortableId("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    /** Unique across the deployment: an email names one person, whatever their tenant. */
    email: text("email").notNull().unique("users_email_unique"),
    name: text("name").notNull(),
    role: text("role").notNull(),
    status: text("status").notNull(),
    tlpClearance: integer("tlp_clearance").notNull(),
    passwordHash: text("password_hash"),
    createdAt: isoTimestamp("created_at").notNull(),
    updatedAt: isoTimestamp("updated_at").notNull(),
    createdBy: text("created_by"),
  },
  (t) => [
    foreignKey({ name: "users_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    index("users_organization_id_idx").on(t.organizationId, t.id),
  ],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    /** "C" since 0001, when keys began to be listed newest first (0000 had the default collation). */
    id: sortableId("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    userId: text("user_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    tier: text("tier").notNull(),
    scopes: jsonb("scopes").$type<JsonValue<Scope[]>>().notNull(),
    tlpClearance: integer("tlp_clearance").notNull(),
    status: text("status").notNull(),
    expiresAt: isoTimestamp("expires_at"),
    lastUsedAt: isoTimestamp("last_used_at"),
    start: text("start").notNull(),
    hash: text("hash").notNull().unique("api_keys_hash_unique"),
    createdAt: isoTimestamp("created_at").notNull(),
    updatedAt: isoTimestamp("updated_at").notNull(),
    createdBy: text("created_by"),
  },
  (t) => [
    foreignKey({ name: "api_keys_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    foreignKey({ name: "api_keys_user_id_fk", columns: [t.userId], foreignColumns: [users.id] }),
    index("api_keys_organization_id_idx").on(t.organizationId, t.id),
  ],
);

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

/** The transactional outbox. */
export const events = pgTable(
  "events",
  {
    id: sortableId("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    name: text("name").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    payload: jsonb("payload").$type<JsonValue<Record<string, unknown>>>().notNull(),
    tlp: integer("tlp"),
    bulkRequestId: text("bulk_request_id"),
    occurredAt: isoTimestamp("occurred_at").notNull(),
    /** When the webhook dispatcher fanned the event out (DeliveryRepository.claimEvents); null until then. */
    dispatchedAt: isoTimestamp("dispatched_at"),
  },
  (t) => [
    foreignKey({ name: "events_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    index("events_organization_id_idx").on(t.organizationId, t.id),
    // The dispatcher's queue: only undispatched events are in it, so it stays small however long the outbox grows.
    index("events_undispatched_idx").on(t.id).where(sql`dispatched_at IS NULL`),
  ],
);

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

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    userId: text("user_id").notNull(),
    tokenHash: text("token_hash").notNull().unique("sessions_token_hash_unique"),
    csrfHash: text("csrf_hash").notNull(),
    createdAt: isoTimestamp("created_at").notNull(),
    expiresAt: isoTimestamp("expires_at").notNull(),
  },
  (t) => [
    foreignKey({ name: "sessions_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    foreignKey({ name: "sessions_user_id_fk", columns: [t.userId], foreignColumns: [users.id] }),
  ],
);

/** Failed sign-ins per email address, whoever it belongs to (if anyone): no foreign key. */
export const signInThrottles = pgTable("sign_in_throttles", {
  email: text("email").primaryKey(),
  failures: integer("failures").notNull(),
  windowStartedAt: isoTimestamp("window_started_at").notNull(),
  blockedUntil: isoTimestamp("blocked_until"),
});

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

export const alerts = pgTable(
  "alerts",
  {
    id: sortableId("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    severity: integer("severity").notNull(),
    tlp: integer("tlp").notNull(),
    pap: integer("pap").notNull(),
    typeValue: text("type_value"),
    source: text("source").notNull(),
    sourceRef: text("source_ref"),
    statusValue: text("status_value").notNull(),
    assigneeId: text("assignee_id"),
    tags: jsonb("tags").$type<JsonValue<CaseTag[]>>().notNull(),
    customFields: jsonb("custom_fields").$type<JsonValue<Record<string, unknown>>>().notNull(),
    /** When the event the alert reports happened (the source's time), not when it arrived. */
    eventDate: isoTimestamp("event_date"),
    /** How often the source sent it (idempotent ingestion), and when last. */
    occurrences: integer("occurrences").notNull().default(1),
    lastSeenAt: isoTimestamp("last_seen_at").notNull(),
    /** The case it was promoted to or merged into. */
    caseId: text("case_id"),
    createdAt: isoTimestamp("created_at").notNull(),
    updatedAt: isoTimestamp("updated_at").notNull(),
    createdBy: text("created_by"),
    deletedAt: isoTimestamp("deleted_at"),
    deletedBy: text("deleted_by"),
  },
  (t) => [
    foreignKey({ name: "alerts_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    // Idempotent ingestion: one live alert per (organization, source, sourceRef) and TLP, so a
    // report from a caller who may not see the alert that has its reference becomes an alert of
    // its own instead of telling that one exists (core/alerts/ingest.ts).
    uniqueIndex("alerts_source_ref_unique").on(t.organizationId, t.source, t.sourceRef, t.tlp).where(sql`deleted_at IS NULL AND source_ref IS NOT NULL`),
    index("alerts_organization_id_idx").on(t.organizationId, t.id),
    index("alerts_organization_id_status_value_idx").on(t.organizationId, t.statusValue, t.id),
    index("alerts_organization_id_severity_idx").on(t.organizationId, t.severity, t.id),
    index("alerts_organization_id_assignee_id_idx").on(t.organizationId, t.assigneeId, t.id),
    index("alerts_tags_idx").using("gin", t.tags.op("jsonb_path_ops")),
    // Alerts by source: counted from this index alone (covering), without touching the table.
    index("alerts_organization_id_source_idx").on(t.organizationId, t.source, t.deletedAt, t.tlp, t.statusValue, t.createdAt),
    // Alerts by source between two instants off the hour: the partial hours at the edges are
    // counted from this index alone (covering), one seek to the range's start.
    index("alerts_organization_id_created_at_idx").on(t.organizationId, t.createdAt, t.tlp, t.statusValue, t.source).where(sql`deleted_at IS NULL`),
  ],
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

export const webhooks = pgTable(
  "webhooks",
  {
    id: sortableId("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    name: text("name").notNull(),
    url: text("url").notNull(),
    events: jsonb("events").$type<JsonValue<string[]>>().notNull(),
    description: text("description"),
    method: text("method").notNull(),
    authType: text("auth_type").notNull(),
    /** Member names in clear, values sealed. */
    authConfig: jsonb("auth_config").$type<JsonValue<Record<string, string>>>().notNull(),
    headers: jsonb("headers").$type<JsonValue<Record<string, string>>>().notNull(),
    filters: jsonb("filters").$type<JsonValue<WebhookFilters>>().notNull(),
    retryDelayMs: integer("retry_delay_ms").notNull(),
    timeoutMs: integer("timeout_ms").notNull(),
    maxRetries: integer("max_retries").notNull(),
    tags: jsonb("tags").$type<JsonValue<string[]>>().notNull(),
    environment: text("environment").notNull(),
    status: text("status").notNull(),
    disabledReason: text("disabled_reason"),
    /** Sealed signing secret, and the sealed previous one while a rotation's grace period lasts. */
    secret: text("secret").notNull(),
    secretStart: text("secret_start").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: isoTimestamp("previous_secret_expires_at"),
    createdAt: isoTimestamp("created_at").notNull(),
    updatedAt: isoTimestamp("updated_at").notNull(),
    createdBy: text("created_by"),
    /**
     * What the subscription was granted when it was created: the key that created it (null for a
     * session or host identity), and that principal's clearance and scopes. Deliveries never carry
     * more (core/webhooks/grant.ts). Rows older than the column were backfilled by the migration.
     */
    grantKeyId: text("grant_key_id"),
    grantTlpClearance: integer("grant_tlp_clearance").notNull().default(0),
    grantScopes: jsonb("grant_scopes").$type<JsonValue<Scope[]>>().notNull().default(sql`'[]'::jsonb`),
  },
  (t) => [
    foreignKey({ name: "webhooks_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    index("webhooks_organization_id_idx").on(t.organizationId, t.id),
    // Fan-out reads an organization's active subscriptions once per batch of events.
    index("webhooks_organization_id_status_idx").on(t.organizationId, t.status),
  ],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: sortableId("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    webhookId: text("webhook_id").notNull(),
    eventId: text("event_id").notNull(),
    eventName: text("event_name").notNull(),
    status: text("status").notNull(),
    attempts: integer("attempts").notNull(),
    nextAttemptAt: isoTimestamp("next_attempt_at"),
    /** A dispatcher holds the delivery until then (claimDue); another may take it over after. */
    leaseUntil: isoTimestamp("lease_until"),
    lastResponseStatus: integer("last_response_status"),
    lastErrorClass: text("last_error_class"),
    createdAt: isoTimestamp("created_at").notNull(),
    updatedAt: isoTimestamp("updated_at").notNull(),
    completedAt: isoTimestamp("completed_at"),
  },
  (t) => [
    foreignKey({ name: "webhook_deliveries_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    foreignKey({ name: "webhook_deliveries_webhook_id_fk", columns: [t.webhookId], foreignColumns: [webhooks.id] }),
    foreignKey({ name: "webhook_deliveries_event_id_fk", columns: [t.eventId], foreignColumns: [events.id] }),
    // One delivery per event and subscription: a fan-out run twice creates nothing new.
    uniqueIndex("webhook_deliveries_webhook_id_event_id_unique").on(t.webhookId, t.eventId),
    // claimDue: pending deliveries in due order.
    index("webhook_deliveries_status_next_attempt_at_idx").on(t.status, t.nextAttemptAt),
    // A subscription's delivery history, newest first.
    index("webhook_deliveries_organization_id_webhook_id_idx").on(t.organizationId, t.webhookId, t.id),
    // Retention: finished deliveries by completion time.
    index("webhook_deliveries_completed_at_idx").on(t.completedAt),
  ],
);

export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: sortableId("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    deliveryId: text("delivery_id").notNull(),
    webhookId: text("webhook_id").notNull(),
    attempt: integer("attempt").notNull(),
    requestedAt: isoTimestamp("requested_at").notNull(),
    durationMs: doublePrecision("duration_ms").notNull(),
    responseStatus: integer("response_status"),
    /** At most 4 KiB of the receiver's answer. */
    responseBody: text("response_body"),
    errorClass: text("error_class"),
    nextAttemptAt: isoTimestamp("next_attempt_at"),
  },
  (t) => [
    foreignKey({ name: "webhook_attempts_organization_id_fk", columns: [t.organizationId], foreignColumns: [organizations.id] }),
    foreignKey({ name: "webhook_attempts_delivery_id_fk", columns: [t.deliveryId], foreignColumns: [webhookDeliveries.id] }),
    index("webhook_attempts_delivery_id_idx").on(t.deliveryId, t.attempt),
  ],
);
