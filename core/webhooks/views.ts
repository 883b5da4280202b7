import type { z } from "zod";
import type { DeliveryView } from "./api-schema.js";
import type { webhookSchema } from "./schema.js";
import type { Delivery, DeliveryAttempt, StoredWebhook } from "./types.js";

export type Webhook = z.output<typeof webhookSchema>;

const mask = "********" as const;

/**
 * A subscription as callers, audit entries and events see it: no secret (sealed or not), no
 * previous secret, and authConfig with its member names only. Built field by field, so a field
 * added to StoredWebhook later stays private until someone decides otherwise.
 */
export function toPublicWebhook(stored: StoredWebhook): Webhook {
  return {
    id: stored.id,
    organizationId: stored.organizationId,
    name: stored.name,
    url: stored.url,
    events: stored.events,
    description: stored.description,
    method: stored.method,
    authType: stored.authType,
    authConfig: Object.fromEntries(Object.keys(stored.authConfig).map((name) => [name, mask])),
    headers: stored.headers,
    filters: stored.filters,
    retryDelayMs: stored.retryDelayMs,
    timeoutMs: stored.timeoutMs,
    maxRetries: stored.maxRetries,
    tags: stored.tags,
    environment: stored.environment,
    status: stored.status,
    disabledReason: stored.disabledReason,
    secretStart: stored.secretStart,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    createdBy: stored.createdBy,
  };
}

/** A delivery with its attempts, as the delivery history shows it (no lease: that is the dispatcher's). */
export function toDeliveryView(delivery: Delivery, attempts: readonly DeliveryAttempt[]): DeliveryView {
  return {
    id: delivery.id,
    organizationId: delivery.organizationId,
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
    eventName: delivery.eventName,
    status: delivery.status,
    attemptCount: delivery.attempts,
    nextAttemptAt: delivery.status === "pending" ? delivery.nextAttemptAt : null,
    lastResponseStatus: delivery.lastResponseStatus,
    lastErrorClass: delivery.lastErrorClass,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
    completedAt: delivery.completedAt,
    attempts: attempts
      .filter((a) => a.deliveryId === delivery.id)
      .map((a) => ({
        id: a.id,
        attempt: a.attempt,
        requestedAt: a.requestedAt,
        durationMs: a.durationMs,
        responseStatus: a.responseStatus,
        responseBody: a.responseBody,
        errorClass: a.errorClass,
        nextAttemptAt: a.nextAttemptAt,
      })),
  };
}
