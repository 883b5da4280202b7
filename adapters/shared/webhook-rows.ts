/**
 * Webhook rows ↔ records, for both dialects (the conventions of adapters/shared/rows.ts): the
 * subscriptions, their deliveries and the deliveries' attempts.
 */
import type { Scope } from "../../core/access/scopes.js";
import type { WebhookFilters } from "../../core/webhooks/filters.js";
import type { AttemptErrorClass, Delivery, DeliveryAttempt, DeliveryStatus, StoredWebhook } from "../../core/webhooks/types.js";
import type { RowMode } from "./rows.js";
import type { JsonValue, TimestampValue } from "./values.js";
import { fromJson, orNull, toIsoTimestamp, toIsoTimestampOrNull, toJson } from "./values.js";

type Ts<M extends RowMode> = M extends "write" ? string : TimestampValue;
type Js<M extends RowMode, T> = M extends "write" ? string : JsonValue<T>;
type Opt<M extends RowMode, T> = M extends "write" ? T | null : T | null | undefined;
type Complete<Missing extends never> = Missing;

/**
 * The events column the dispatcher keeps itself (DeliveryRepository.claimEvents): not part of the
 * DomainEvent record, so the shared event row leaves it out, as organizations' counters are.
 */
export const eventDispatchColumns = ["dispatched_at"] as const;

// ---------------------------------------------------------------------------------------------
// webhooks

export interface WebhookRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  name: string;
  url: string;
  events: Js<M, string[]>;
  description: Opt<M, string>;
  method: string;
  auth_type: string;
  auth_config: Js<M, Record<string, string>>;
  headers: Js<M, Record<string, string>>;
  filters: Js<M, WebhookFilters>;
  retry_delay_ms: number;
  timeout_ms: number;
  max_retries: number;
  tags: Js<M, string[]>;
  environment: string;
  status: string;
  disabled_reason: Opt<M, string>;
  secret: string;
  secret_start: string;
  previous_secret: Opt<M, string>;
  previous_secret_expires_at: Opt<M, Ts<M>>;
  created_at: Ts<M>;
  updated_at: Ts<M>;
  created_by: Opt<M, string>;
  grant_key_id: Opt<M, string>;
  grant_tlp_clearance: number;
  grant_scopes: Js<M, Scope[]>;
}

export const webhookColumns = [
  "id",
  "organization_id",
  "name",
  "url",
  "events",
  "description",
  "method",
  "auth_type",
  "auth_config",
  "headers",
  "filters",
  "retry_delay_ms",
  "timeout_ms",
  "max_retries",
  "tags",
  "environment",
  "status",
  "disabled_reason",
  "secret",
  "secret_start",
  "previous_secret",
  "previous_secret_expires_at",
  "created_at",
  "updated_at",
  "created_by",
  "grant_key_id",
  "grant_tlp_clearance",
  "grant_scopes",
] as const satisfies readonly (keyof WebhookRow)[];
type _WebhookColumnsComplete = Complete<Exclude<keyof WebhookRow, (typeof webhookColumns)[number]>>;

export function webhookToRow(webhook: StoredWebhook): WebhookRow<"write"> {
  return {
    id: webhook.id,
    organization_id: webhook.organizationId,
    name: webhook.name,
    url: webhook.url,
    events: toJson(webhook.events),
    description: orNull(webhook.description),
    method: webhook.method,
    auth_type: webhook.authType,
    auth_config: toJson(webhook.authConfig),
    headers: toJson(webhook.headers),
    filters: toJson(webhook.filters),
    retry_delay_ms: webhook.retryDelayMs,
    timeout_ms: webhook.timeoutMs,
    max_retries: webhook.maxRetries,
    tags: toJson(webhook.tags),
    environment: webhook.environment,
    status: webhook.status,
    disabled_reason: orNull(webhook.disabledReason),
    secret: webhook.secret,
    secret_start: webhook.secretStart,
    previous_secret: orNull(webhook.previousSecret),
    previous_secret_expires_at: toIsoTimestampOrNull(webhook.previousSecretExpiresAt),
    created_at: toIsoTimestamp(webhook.createdAt),
    updated_at: toIsoTimestamp(webhook.updatedAt),
    created_by: orNull(webhook.createdBy),
    grant_key_id: orNull(webhook.grant.keyId),
    grant_tlp_clearance: webhook.grant.tlpClearance,
    grant_scopes: toJson(webhook.grant.scopes),
  };
}

export function webhookFromRow(row: WebhookRow): StoredWebhook {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    url: row.url,
    events: fromJson(row.events),
    description: orNull(row.description),
    method: row.method as StoredWebhook["method"],
    authType: row.auth_type as StoredWebhook["authType"],
    authConfig: fromJson(row.auth_config),
    headers: fromJson(row.headers),
    filters: fromJson(row.filters),
    retryDelayMs: row.retry_delay_ms,
    timeoutMs: row.timeout_ms,
    maxRetries: row.max_retries,
    tags: fromJson(row.tags),
    environment: row.environment,
    status: row.status as StoredWebhook["status"],
    disabledReason: orNull(row.disabled_reason),
    secret: row.secret,
    secretStart: row.secret_start,
    previousSecret: orNull(row.previous_secret),
    previousSecretExpiresAt: toIsoTimestampOrNull(row.previous_secret_expires_at),
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at),
    createdBy: orNull(row.created_by),
    grant: { keyId: orNull(row.grant_key_id), tlpClearance: row.grant_tlp_clearance, scopes: fromJson(row.grant_scopes) },
  };
}

// ---------------------------------------------------------------------------------------------
// webhook_deliveries

export interface DeliveryRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  webhook_id: string;
  event_id: string;
  event_name: string;
  status: string;
  attempts: number;
  next_attempt_at: Opt<M, Ts<M>>;
  lease_until: Opt<M, Ts<M>>;
  last_response_status: Opt<M, number>;
  last_error_class: Opt<M, string>;
  created_at: Ts<M>;
  updated_at: Ts<M>;
  completed_at: Opt<M, Ts<M>>;
}

export const deliveryColumns = [
  "id",
  "organization_id",
  "webhook_id",
  "event_id",
  "event_name",
  "status",
  "attempts",
  "next_attempt_at",
  "lease_until",
  "last_response_status",
  "last_error_class",
  "created_at",
  "updated_at",
  "completed_at",
] as const satisfies readonly (keyof DeliveryRow)[];
type _DeliveryColumnsComplete = Complete<Exclude<keyof DeliveryRow, (typeof deliveryColumns)[number]>>;

/** What `update` may change; the subscription, the event and the creation time are fixed. */
export const deliveryMutableColumns = [
  "status",
  "attempts",
  "next_attempt_at",
  "lease_until",
  "last_response_status",
  "last_error_class",
  "updated_at",
  "completed_at",
] as const satisfies readonly (keyof DeliveryRow)[];

export function deliveryToRow(delivery: Delivery): DeliveryRow<"write"> {
  return {
    id: delivery.id,
    organization_id: delivery.organizationId,
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    event_name: delivery.eventName,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: toIsoTimestampOrNull(delivery.nextAttemptAt),
    lease_until: toIsoTimestampOrNull(delivery.leaseUntil),
    last_response_status: orNull(delivery.lastResponseStatus),
    last_error_class: orNull(delivery.lastErrorClass),
    created_at: toIsoTimestamp(delivery.createdAt),
    updated_at: toIsoTimestamp(delivery.updatedAt),
    completed_at: toIsoTimestampOrNull(delivery.completedAt),
  };
}

export function deliveryFromRow(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    organizationId: row.organization_id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventName: row.event_name,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: toIsoTimestampOrNull(row.next_attempt_at),
    leaseUntil: toIsoTimestampOrNull(row.lease_until),
    lastResponseStatus: orNull(row.last_response_status),
    lastErrorClass: orNull(row.last_error_class) as AttemptErrorClass | null,
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at),
    completedAt: toIsoTimestampOrNull(row.completed_at),
  };
}

// ---------------------------------------------------------------------------------------------
// webhook_attempts

export interface AttemptRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  delivery_id: string;
  webhook_id: string;
  attempt: number;
  requested_at: Ts<M>;
  duration_ms: number;
  response_status: Opt<M, number>;
  response_body: Opt<M, string>;
  error_class: Opt<M, string>;
  next_attempt_at: Opt<M, Ts<M>>;
}

export const attemptColumns = [
  "id",
  "organization_id",
  "delivery_id",
  "webhook_id",
  "attempt",
  "requested_at",
  "duration_ms",
  "response_status",
  "response_body",
  "error_class",
  "next_attempt_at",
] as const satisfies readonly (keyof AttemptRow)[];
type _AttemptColumnsComplete = Complete<Exclude<keyof AttemptRow, (typeof attemptColumns)[number]>>;

export function attemptToRow(attempt: DeliveryAttempt): AttemptRow<"write"> {
  return {
    id: attempt.id,
    organization_id: attempt.organizationId,
    delivery_id: attempt.deliveryId,
    webhook_id: attempt.webhookId,
    attempt: attempt.attempt,
    requested_at: toIsoTimestamp(attempt.requestedAt),
    duration_ms: attempt.durationMs,
    response_status: orNull(attempt.responseStatus),
    response_body: orNull(attempt.responseBody),
    error_class: orNull(attempt.errorClass),
    next_attempt_at: toIsoTimestampOrNull(attempt.nextAttemptAt),
  };
}

export function attemptFromRow(row: AttemptRow): DeliveryAttempt {
  return {
    id: row.id,
    organizationId: row.organization_id,
    deliveryId: row.delivery_id,
    webhookId: row.webhook_id,
    attempt: row.attempt,
    requestedAt: toIsoTimestamp(row.requested_at),
    // PostgreSQL's double precision comes back as a number; a driver handing back text is read too.
    durationMs: Number(row.duration_ms),
    responseStatus: orNull(row.response_status),
    responseBody: orNull(row.response_body),
    errorClass: orNull(row.error_class) as AttemptErrorClass | null,
    nextAttemptAt: toIsoTimestampOrNull(row.next_attempt_at),
  };
}
