import type { Scope } from "../access/scopes.js";
import type { WebhookFilters } from "./filters.js";
import type { webhookAuthTypes, webhookMethods, webhookStatuses } from "./schema.js";

/**
 * A webhook subscription as stored. Secrets never leave the core in clear: `secret`,
 * `previousSecret` and every `authConfig` value are sealed (AES-256-GCM under a key derived from
 * the deployment's key-hash secret) before they reach storage, so a stolen database cannot sign
 * deliveries or call receivers.
 */
export interface StoredWebhook {
  id: string;
  organizationId: string;
  name: string;
  url: string;
  events: string[];
  description: string | null;
  method: (typeof webhookMethods)[number];
  authType: (typeof webhookAuthTypes)[number];
  /** Member names in clear, values sealed. */
  authConfig: Record<string, string>;
  headers: Record<string, string>;
  filters: WebhookFilters;
  retryDelayMs: number;
  timeoutMs: number;
  maxRetries: number;
  tags: string[];
  environment: string;
  status: (typeof webhookStatuses)[number];
  disabledReason: string | null;
  /** Sealed `whsec_…`. */
  secret: string;
  /** The first characters of the clear secret, for display. */
  secretStart: string;
  /** Sealed previous secret, still signed with until `previousSecretExpiresAt` (rotation). */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The owner: deliveries carry only what this user may see (TLP re-checked at send time). */
  createdBy: string | null;
  /**
   * What the principal that created the subscription held then; deliveries never carry more, and
   * only someone who holds at least this may redirect the subscription (core/webhooks/grant.ts).
   */
  grant: WebhookGrant;
}

export interface WebhookGrant {
  /** The key that created the subscription; null when a session or the host's identity did. */
  keyId: string | null;
  tlpClearance: number;
  scopes: Scope[];
}

export const deliveryStatuses = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** One event for one subscription; its id is the `webhook-id` of every attempt. */
export interface Delivery {
  id: string;
  organizationId: string;
  webhookId: string;
  eventId: string;
  eventName: string;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: string | null;
  /** A dispatcher holds the delivery until then; another may take it over after. */
  leaseUntil: string | null;
  lastResponseStatus: number | null;
  lastErrorClass: AttemptErrorClass | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export const attemptErrorClasses = ["timeout", "network", "blocked", "http"] as const;
export type AttemptErrorClass = (typeof attemptErrorClasses)[number];

export interface DeliveryAttempt {
  id: string;
  organizationId: string;
  deliveryId: string;
  webhookId: string;
  attempt: number;
  requestedAt: string;
  durationMs: number;
  responseStatus: number | null;
  /** At most 4 KiB of the response body. */
  responseBody: string | null;
  errorClass: AttemptErrorClass | null;
  /** When the next attempt was scheduled after this one, or null (delivered, or given up). */
  nextAttemptAt: string | null;
}

export interface DeliveryFilter {
  status?: DeliveryStatus[];
  eventName?: string[];
}
