import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { recordChange } from "../audit/record-change.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError, invalidField } from "../errors.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";
import type { DeliveryView } from "./api-schema.js";
import { deliveryListQuerySchema, webhookListQuerySchema } from "./api-schema.js";
import { webhookCreateSchema, webhookUpdateSchema } from "./schema.js";
import { deliveryPrincipal, grantOf, isBlocked, requireHoldsGrant } from "./grant.js";
import { createSealer } from "./seal.js";
import { generateWebhookSecret } from "./signature.js";
import { checkWebhookUrl, parseWebhookAllowlist } from "./ssrf.js";
import type { Delivery, StoredWebhook } from "./types.js";
import type { Webhook } from "./views.js";
import { toDeliveryView, toPublicWebhook } from "./views.js";

/** How long the previous secret keeps signing after a rotation (both signatures are sent). */
export const secretRotationGraceMs = 24 * 60 * 60_000;
/** Characters of the clear secret kept for display: `whsec_` and four more. */
const secretStartLength = 10;
const testEventName = "webhook.test";
/** The authConfig members of each authType, sorted (as schema.ts requires them). */
const authMembers: Record<StoredWebhook["authType"], string> = { none: "", basic: "password,username", bearer: "token", header: "name,value" };

export interface WebhookService {
  create(principal: Principal, input: unknown): Promise<Webhook & { secret: string }>;
  get(principal: Principal, id: string): Promise<Webhook>;
  list(principal: Principal, query: unknown): Promise<{ data: Webhook[]; nextCursor: string | null }>;
  update(principal: Principal, id: string, input: unknown): Promise<Webhook>;
  delete(principal: Principal, id: string): Promise<Webhook>;
  rotateSecret(principal: Principal, id: string): Promise<Webhook & { secret: string }>;
  test(principal: Principal, id: string): Promise<DeliveryView>;
  listDeliveries(principal: Principal, id: string, query: unknown): Promise<{ data: DeliveryView[]; nextCursor: string | null }>;
  redeliver(principal: Principal, id: string, deliveryId: string): Promise<DeliveryView>;
}

/**
 * Webhook subscriptions (spec §2.4) and their delivery history. Administrative: `webhooks:read`
 * to look, `webhooks:write` to change. Signing secrets and authConfig values are sealed before
 * they are stored and never leave this service in clear, except a new secret in the one response
 * that creates it. Audit entries and events carry the public (masked) view only.
 */
export function createWebhookService(deps: CaseKitDeps): WebhookService {
  const { storage, clock, ids } = deps;
  const sealer = createSealer(deps.config.keyHashSecret);
  // Parsed once: a malformed allowlist is a start-up error, not a surprise on the first request.
  const allowlist = parseWebhookAllowlist(deps.config.webhookAllowlist);

  function checkUrl(url: string): void {
    const verdict = checkWebhookUrl(url, allowlist);
    if (!verdict.ok) throw invalidField("url", verdict.reason);
  }

  const sealAll = (config: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(config).map(([name, value]) => [name, sealer.seal(value)]));

  /** Unknown ids and other organizations' subscriptions are 404 alike. */
  async function load(tx: UnitOfWork, principal: Principal, id: string): Promise<StoredWebhook> {
    const webhook = await tx.webhooks.findById(principal.organizationId, id);
    if (!webhook) throw new CaseKitError("not_found", `No webhook ${id}`);
    return webhook;
  }

  /** A subscription whose key is gone for good cannot come back: it would deliver nothing. */
  async function requireGrantAlive(tx: UnitOfWork, webhook: StoredWebhook, now: Date): Promise<void> {
    if (webhook.grant.keyId === null) return;
    const key = await tx.apiKeys.findById(webhook.organizationId, webhook.grant.keyId);
    const owner = webhook.createdBy ? await tx.users.findById(webhook.organizationId, webhook.createdBy) : null;
    const verdict = deliveryPrincipal(webhook, { owner, key }, now);
    if (isBlocked(verdict) && verdict.kind === "gone") throw new CaseKitError("conflict", `${verdict.reason}: create a new subscription instead`);
  }

  function requireActive(webhook: StoredWebhook): void {
    if (webhook.status !== "active") throw new CaseKitError("conflict", "The webhook is disabled: enable it (PATCH status \"active\") first");
  }

  async function change(tx: UnitOfWork, principal: Principal, name: string, before: StoredWebhook | null, after: StoredWebhook, now: Date, gone = false): Promise<void> {
    await recordChange(deps, tx, principal, {
      name,
      resourceType: "webhook",
      before: before && toPublicWebhook(before),
      after: toPublicWebhook(after),
      tlp: null,
      now,
      gone,
    });
  }

  return {
    async create(principal, input) {
      requireScope(principal, "webhooks:write");
      const body = parse(webhookCreateSchema, input);
      checkUrl(body.url);
      const secret = generateWebhookSecret();
      const now = clock.now();
      const at = now.toISOString();
      const stored: StoredWebhook = {
        id: ids.next("whk"),
        organizationId: principal.organizationId,
        name: body.name,
        url: body.url,
        events: [...new Set(body.events)],
        description: body.description ?? null,
        method: body.method,
        authType: body.authType,
        authConfig: sealAll(body.authConfig as Record<string, string>),
        headers: body.headers,
        filters: body.filters,
        retryDelayMs: body.retryDelayMs,
        timeoutMs: body.timeoutMs,
        maxRetries: body.maxRetries,
        tags: body.tags,
        environment: body.environment,
        status: "active",
        disabledReason: null,
        secret: sealer.seal(secret),
        secretStart: secret.slice(0, secretStartLength),
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: at,
        updatedAt: at,
        // The owner, and what the creator holds: deliveries never carry more (core/webhooks/grant.ts).
        createdBy: principal.userId,
        grant: grantOf(principal),
      };
      await storage.transaction(async (tx) => {
        await tx.webhooks.insert(stored);
        await change(tx, principal, "webhook.created", null, stored, now);
      });
      return { ...toPublicWebhook(stored), secret };
    },

    async get(principal, id) {
      requireScope(principal, "webhooks:read");
      return toPublicWebhook(await storage.read((tx) => load(tx, principal, id)));
    },

    async list(principal, query) {
      requireScope(principal, "webhooks:read");
      const { limit, cursor } = parse(webhookListQuerySchema, query);
      const rows = await storage.read((tx) => tx.webhooks.list(principal.organizationId, { limit: limit + 1, beforeId: decodeCursor(cursor) }));
      return toPage(rows.map(toPublicWebhook), limit);
    },

    async update(principal, id, input) {
      requireScope(principal, "webhooks:write");
      const patch = parse(webhookUpdateSchema, input);
      if (patch.url !== undefined) checkUrl(patch.url);
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await load(tx, principal, id);
        const { authConfig, status, events, ...fields } = patch;
        // Turning a subscription off only stops data; anything else needs at least its grant.
        const onlyDisables = status === "disabled" && Object.keys(patch).length === 1;
        if (!onlyDisables) requireHoldsGrant(principal, before);
        if (status === "active" && before.status !== "active") await requireGrantAlive(tx, before, now);
        const authType = patch.authType ?? before.authType;
        const after: StoredWebhook = {
          ...before,
          ...fields,
          ...(events ? { events: [...new Set(events)] } : {}),
          // Replaced only when given; switching to "none" drops the old credentials.
          authConfig: authConfig !== undefined ? sealAll(authConfig as Record<string, string>) : authType === "none" ? {} : before.authConfig,
          status: status ?? before.status,
          disabledReason: (status ?? before.status) === "active" ? null : status === "disabled" && before.status === "active" ? "Disabled on request" : before.disabledReason,
          updatedAt: now.toISOString(),
        };
        // The schema checks a patch naming both; this catches one naming only authConfig.
        if (Object.keys(after.authConfig).sort().join(",") !== authMembers[authType]) {
          throw invalidField("authConfig", `does not fit authType ${authType}: give authType and authConfig together`);
        }
        await tx.webhooks.update(after);
        await change(tx, principal, "webhook.updated", before, after, now);
        return toPublicWebhook(after);
      });
    },

    async delete(principal, id) {
      requireScope(principal, "webhooks:write");
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const webhook = await load(tx, principal, id);
        await tx.webhooks.delete(principal.organizationId, id);
        await change(tx, principal, "webhook.deleted", null, webhook, now, true);
        return toPublicWebhook(webhook);
      });
    },

    async rotateSecret(principal, id) {
      requireScope(principal, "webhooks:write");
      const secret = generateWebhookSecret();
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await load(tx, principal, id);
        // The secret signs what the subscription delivers: it is for those who hold its grant.
        requireHoldsGrant(principal, before);
        const after: StoredWebhook = {
          ...before,
          secret: sealer.seal(secret),
          secretStart: secret.slice(0, secretStartLength),
          // The secret being replaced keeps signing for a day, so receivers can switch over.
          // A second rotation within that day drops the oldest one.
          previousSecret: before.secret,
          previousSecretExpiresAt: new Date(now.getTime() + secretRotationGraceMs).toISOString(),
          updatedAt: now.toISOString(),
        };
        await tx.webhooks.update(after);
        await change(tx, principal, "webhook.secret_rotated", before, after, now);
        return { ...toPublicWebhook(after), secret };
      });
    },

    /**
     * Sends a `webhook.test` event to this subscription only. The event (payload `{ webhookId }`,
     * which the dispatcher's fan-out matches to this subscription alone) and its delivery are
     * written in one unit of work, so the answer can name the delivery; the fan-out's own attempt
     * to create it later is ignored (one delivery per subscription and event).
     */
    async test(principal, id) {
      requireScope(principal, "webhooks:write");
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const webhook = await load(tx, principal, id);
        requireActive(webhook);
        const eventId = await recordChange(deps, tx, principal, {
          name: testEventName,
          resourceType: "webhook",
          before: null,
          after: { id: webhook.id, webhookId: webhook.id, name: webhook.name, message: "A test event, sent on request" },
          tlp: null,
          now,
        });
        const at = now.toISOString();
        const delivery: Delivery = {
          id: ids.next("dlv"),
          organizationId: webhook.organizationId,
          webhookId: webhook.id,
          eventId,
          eventName: testEventName,
          status: "pending",
          attempts: 0,
          nextAttemptAt: at,
          leaseUntil: null,
          lastResponseStatus: null,
          lastErrorClass: null,
          createdAt: at,
          updatedAt: at,
          completedAt: null,
        };
        await tx.deliveries.insertMany([delivery]);
        return toDeliveryView(delivery, []);
      });
    },

    async listDeliveries(principal, id, query) {
      requireScope(principal, "webhooks:read");
      const { limit, cursor, status, eventName } = parse(deliveryListQuerySchema, query);
      const beforeId = decodeCursor(cursor);
      return storage.read(async (tx) => {
        await load(tx, principal, id);
        const filter = { ...(status ? { status } : {}), ...(eventName ? { eventName } : {}) };
        const page = toPage(await tx.deliveries.list(principal.organizationId, id, filter, { limit: limit + 1, beforeId }), limit);
        const attempts = await tx.deliveries.attemptsOf(principal.organizationId, page.data.map((d) => d.id));
        return { data: page.data.map((d) => toDeliveryView(d, attempts)), nextCursor: page.nextCursor };
      });
    },

    /**
     * A failed delivery goes back to pending, due now, with the same id (so the same
     * `webhook-id`: receivers deduplicate). It gets one more attempt; its history keeps counting.
     */
    async redeliver(principal, id, deliveryId) {
      requireScope(principal, "webhooks:write");
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const webhook = await load(tx, principal, id);
        const before = await tx.deliveries.findById(principal.organizationId, deliveryId);
        if (!before || before.webhookId !== webhook.id) throw new CaseKitError("not_found", `No delivery ${deliveryId} of webhook ${id}`);
        if (before.status !== "failed") throw new CaseKitError("invalid_transition", `Only a failed delivery can be redelivered; this one is ${before.status}`);
        requireActive(webhook);
        const at = now.toISOString();
        const after: Delivery = { ...before, status: "pending", nextAttemptAt: at, leaseUntil: null, completedAt: null, updatedAt: at };
        await tx.deliveries.update(after);
        const attempts = await tx.deliveries.attemptsOf(principal.organizationId, [before.id]);
        await recordChange(deps, tx, principal, {
          name: "webhook.redelivered",
          resourceType: "webhook_delivery",
          before: toDeliveryView(before, []),
          after: toDeliveryView(after, []),
          tlp: null,
          now,
        });
        return toDeliveryView(after, attempts);
      });
    },
  };
}
