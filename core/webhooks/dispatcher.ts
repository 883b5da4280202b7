import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import type { DomainEvent } from "../events/types.js";
import type { OutboundResponse, OutboundTransport } from "../ports/outbound.js";
import { OutboundError } from "../ports/outbound.js";
import type { UnitOfWork } from "../ports/storage.js";
import { matchesFilters } from "./filters.js";
import { splitItemId } from "../log/groups.js";
import type { AttemptOutcome } from "./schedule.js";
import { nextStep } from "./schedule.js";
import { subscribedTo } from "./schema.js";
import { effectiveTlp } from "../tlp/effective.js";
import { inheritedTlp } from "../tlp/lineage.js";
import { storableText } from "../schema/well-formed.js";
import { deliveryBody, eventData } from "./event-view.js";
import type { GrantHolders } from "./grant.js";
import { deliveryPrincipal, isBlocked } from "./grant.js";
import { signedHeaders } from "./signature.js";
import type { AttemptErrorClass, Delivery, DeliveryAttempt, StoredWebhook } from "./types.js";

/** How sealed secrets become usable again; the webhook service's sealing provides it. */
export type Unseal = (sealed: string) => string;

export interface DispatcherOptions {
  transport: OutboundTransport;
  unseal: Unseal;
  /** Events fanned out, and deliveries attempted, per step. Default 100. */
  batchSize?: number;
  /** How long a claimed delivery stays this dispatcher's before another may take it. Default 2 min (longer than the longest attempt). */
  leaseMs?: number;
  /** Attempts in flight at once. Default 8. */
  concurrency?: number;
  /** Finished deliveries are purged after this many days. Default 30. */
  retentionDays?: number;
  /** [0, 1) for the retry jitter; Math.random by default (tests fix it). */
  random?: () => number;
  /**
   * Runs the write that records an attempt, retrying it through a passing database error. The
   * core keeps no timers, so the host brings the backoff (server/worker.ts: p-retry, about 3 s in
   * all); without one the write is tried `recordAttempts` times back to back.
   */
  retryRecord?: (write: () => Promise<void>) => Promise<void>;
}

const testEvent = "webhook.test";
/** Tries of the write that records an attempt when the host brings no backoff of its own. */
const recordAttempts = 6;

async function retryBackToBack(write: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= recordAttempts) throw error;
    }
  }
}

/**
 * The webhook dispatcher: turns committed outbox events into signed deliveries.
 *
 * 1. `fanOut` claims undispatched events and, in the same unit of work, creates one delivery per
 *    matching active subscription of the event's own organization (tenant isolation by
 *    construction: subscriptions are read per event organization). A crash before commit leaves
 *    the events unclaimed; after it, the deliveries exist: nothing is lost, nothing doubled.
 * 2. `deliverDue` leases due deliveries, sends one attempt each (outside any transaction), then
 *    records the attempt and the next step. A crash mid-attempt leaves the lease to expire and
 *    the attempt is made again with the same `webhook-id` (at-least-once, deduplicable).
 *
 * Every time comes from the clock port; `step` runs both once, so tests drive it with a manual
 * clock. Hosts loop it (server/worker.ts).
 */
export function createDispatcher(deps: CaseKitDeps, options: DispatcherOptions) {
  const { storage, clock, ids } = deps;
  const batchSize = options.batchSize ?? 100;
  const leaseMs = options.leaseMs ?? 120_000;
  const concurrency = options.concurrency ?? 8;
  const retentionMs = (options.retentionDays ?? 30) * 86_400_000;
  const random = options.random ?? Math.random;

  async function fanOut(): Promise<number> {
    const now = clock.now();
    return storage.transaction(async (tx) => {
      const events = await tx.deliveries.claimEvents(batchSize, now.toISOString());
      const subscriptions = new Map<string, { webhook: StoredWebhook; principal: Principal | null }[]>();
      const deliveries: Delivery[] = [];
      for (const event of events) {
        let active = subscriptions.get(event.organizationId);
        if (!active) {
          // Each subscription's principal now, so filters see only what it may read.
          active = [];
          for (const webhook of await tx.webhooks.active(event.organizationId)) {
            const principal = deliveryPrincipal(webhook, await holdersOf(tx, webhook), now);
            active.push({ webhook, principal: isBlocked(principal) ? null : principal });
          }
          subscriptions.set(event.organizationId, active);
        }
        for (const { webhook } of active.filter((s) => wants(s.webhook, event, eventData(event, s.principal)))) {
          deliveries.push({
            id: ids.next("dlv"),
            organizationId: event.organizationId,
            webhookId: webhook.id,
            eventId: event.id,
            eventName: event.name,
            status: "pending",
            attempts: 0,
            nextAttemptAt: now.toISOString(),
            leaseUntil: null,
            lastResponseStatus: null,
            lastErrorClass: null,
            createdAt: now.toISOString(),
            updatedAt: now.toISOString(),
            completedAt: null,
          });
        }
      }
      if (deliveries.length > 0) await tx.deliveries.insertMany(deliveries);
      return events.length;
    });
  }

  async function deliverDue(): Promise<number> {
    const now = clock.now();
    const claimed = await storage.transaction((tx) => tx.deliveries.claimDue(batchSize, now.toISOString(), new Date(now.getTime() + leaseMs).toISOString()));
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) await attempt(claimed[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
    return claimed.length;
  }

  /**
   * The group rows (a bulk's one event for many records) read lately, expanded: a group's
   * deliveries come due together, and reading its row once per delivery would cost the whole
   * row each time. Stored events never change, so a kept copy is never stale; two are kept.
   */
  const groups = new Map<string, DomainEvent[]>();
  const keptGroups = 2;

  /** The event a delivery names: a stored event, or one record's event of a group row. */
  async function eventOf(tx: UnitOfWork, delivery: Delivery): Promise<DomainEvent | null> {
    const item = splitItemId(delivery.eventId);
    if (!item) return tx.events.findById(delivery.organizationId, delivery.eventId);
    const key = `${delivery.organizationId}/${item.groupId}`;
    let expanded = groups.get(key);
    if (!expanded) {
      expanded = (await tx.events.findRow(delivery.organizationId, item.groupId)) ?? [];
      groups.set(key, expanded);
      for (const old of groups.keys()) if (groups.size > keptGroups) groups.delete(old);
    }
    const event = expanded[item.position];
    return event?.id === delivery.eventId ? event : null;
  }

  /** The owner and the key a subscription's grant names, as they are now. */
  async function holdersOf(tx: UnitOfWork, webhook: StoredWebhook): Promise<GrantHolders> {
    const owner = webhook.createdBy ? await tx.users.findById(webhook.organizationId, webhook.createdBy) : null;
    const key = webhook.grant.keyId ? await tx.apiKeys.findById(webhook.organizationId, webhook.grant.keyId) : null;
    return { owner, key };
  }

  /** One attempt of one leased delivery: read, send, record. */
  async function attempt(delivery: Delivery): Promise<void> {
    const context = await storage.read(async (tx) => {
      const webhook = await tx.webhooks.findById(delivery.organizationId, delivery.webhookId);
      const stored = await eventOf(tx, delivery);
      // A parent raised since the event (a case made RED) raises the event too: TLP is as of now.
      const event = stored && { ...stored, tlp: stored.tlp === null ? null : effectiveTlp(stored.tlp, [await inheritedTlp(tx, stored.organizationId, stored.resourceType, stored.payload)]) };
      return { webhook, event, holders: webhook ? await holdersOf(tx, webhook) : null };
    });
    const { webhook, event, holders } = context;
    const requestedAt = clock.now();
    // The subscription was deleted or disabled meanwhile: nothing to send, nothing to retry.
    if (!webhook || !event || !holders || webhook.status !== "active") {
      await finish(delivery, { kind: "failed" }, requestedAt, null);
      return;
    }
    // TLP and scopes are checked again at send time, as the grant resolves now (core/webhooks/grant.ts).
    const principal = deliveryPrincipal(webhook, holders, requestedAt);
    if (isBlocked(principal)) {
      // Like their keys, the subscriptions of an inactive owner or a suspended key stop at once;
      // one whose key is gone for good is disabled, saying why.
      await finish(delivery, { kind: "failed" }, requestedAt, null, principal.kind === "gone" ? { webhook, reason: principal.reason } : undefined);
      return;
    }
    const body = JSON.stringify(deliveryBody(event, principal));
    const secrets = [webhook.secret, ...(webhook.previousSecret && webhook.previousSecretExpiresAt && Date.parse(webhook.previousSecretExpiresAt) > requestedAt.getTime() ? [webhook.previousSecret] : [])];
    let headers: Record<string, string>;
    try {
      headers = {
        ...webhook.headers,
        ...authHeaders(webhook, options.unseal),
        "content-type": "application/json",
        "user-agent": "casekit-webhooks",
        ...signedHeaders(secrets.map(options.unseal), delivery.id, requestedAt, body),
      };
    } catch {
      // Secrets sealed under another key-hash secret cannot sign: retrying cannot help.
      await finish(delivery, { kind: "failed" }, requestedAt, null);
      return;
    }

    let response: OutboundResponse | null = null;
    let errorClass: AttemptErrorClass | null = null;
    let durationMs = 0;
    try {
      response = await options.transport.send({ url: webhook.url, method: webhook.method, headers, body, timeoutMs: webhook.timeoutMs });
      durationMs = response.durationMs;
      if (response.status < 200 || response.status >= 300) errorClass = "http";
    } catch (error) {
      errorClass = error instanceof OutboundError ? error.errorClass : "network";
      durationMs = error instanceof OutboundError ? error.durationMs : 0;
    }
    const number = delivery.attempts + 1;
    const after = clock.now();
    const outcome = nextStep(response ? { status: response.status, retryAfter: response.retryAfter } : { error: errorClass as "timeout" | "network" | "blocked" }, number, webhook, after, random());
    const record: DeliveryAttempt = {
      id: ids.next("att"),
      organizationId: delivery.organizationId,
      deliveryId: delivery.id,
      webhookId: webhook.id,
      attempt: number,
      requestedAt: requestedAt.toISOString(),
      durationMs,
      responseStatus: response?.status ?? null,
      // The receiver's text is kept as evidence, never judged: made storable on every database.
      responseBody: response ? storableText(response.body) : null,
      errorClass,
      nextAttemptAt: outcome.kind === "retry" ? new Date(after.getTime() + outcome.delayMs).toISOString() : null,
    };
    await finish(delivery, outcome, after, record, outcome.kind === "gone" ? { webhook, reason: "The receiver answered 410 Gone" } : undefined);
  }

  /**
   * Records an attempt's outcome. The attempt has happened, so its record must not be lost to a
   * passing database error (the delivery would be sent again): the write is retried (`retryRecord`).
   * A delivery deleted meanwhile (its subscription was) has nothing left to record.
   */
  async function finish(delivery: Delivery, outcome: AttemptOutcome, now: Date, record: DeliveryAttempt | null, disabling?: { webhook: StoredWebhook; reason: string }): Promise<void> {
    const write = () =>
      storage.transaction(async (tx) => {
        const current = await tx.deliveries.findById(delivery.organizationId, delivery.id);
        if (!current) return;
        if (record) await tx.deliveries.insertAttempt(record);
        const done = outcome.kind !== "retry";
        await tx.deliveries.update({
          ...current,
          attempts: current.attempts + (record ? 1 : 0),
          status: outcome.kind === "delivered" ? "delivered" : outcome.kind === "retry" ? "pending" : "failed",
          nextAttemptAt: record?.nextAttemptAt ?? null,
          leaseUntil: null,
          lastResponseStatus: record?.responseStatus ?? current.lastResponseStatus,
          lastErrorClass: record ? record.errorClass : current.lastErrorClass,
          updatedAt: now.toISOString(),
          completedAt: done ? now.toISOString() : null,
        });
        if (disabling) await disable(tx, disabling.webhook, now, disabling.reason);
      });
    await (options.retryRecord ?? retryBackToBack)(write);
  }

  async function disable(tx: UnitOfWork, webhook: StoredWebhook, now: Date, reason: string): Promise<void> {
    const current = await tx.webhooks.findById(webhook.organizationId, webhook.id);
    if (current && current.status === "active") await tx.webhooks.update({ ...current, status: "disabled", disabledReason: reason, updatedAt: now.toISOString() });
  }

  /** Deletes finished deliveries older than the retention. */
  async function purge(): Promise<number> {
    const before = new Date(clock.now().getTime() - retentionMs).toISOString();
    return storage.transaction((tx) => tx.deliveries.purgeCompletedBefore(before, 1_000));
  }

  return {
    fanOut,
    deliverDue,
    purge,
    /** One round: fan out new events, then attempt what is due. Resolves with the work done. */
    async step(): Promise<{ events: number; attempts: number }> {
      const events = await fanOut();
      const attempts = await deliverDue();
      return { events, attempts };
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;

/**
 * Whether a subscription receives an event: its events list, then its filters on the record as
 * the subscription may see it (`view`, core/webhooks/event-view.ts).
 */
function wants(webhook: StoredWebhook, event: DomainEvent, view: Record<string, unknown>): boolean {
  if (event.name === testEvent) return event.payload.webhookId === webhook.id;
  return subscribedTo(webhook.events, event.name) && matchesFilters(webhook.filters, view);
}

function authHeaders(webhook: StoredWebhook, unseal: Unseal): Record<string, string> {
  const config = Object.fromEntries(Object.entries(webhook.authConfig).map(([k, v]) => [k, unseal(v)]));
  switch (webhook.authType) {
    case "basic":
      return { authorization: `Basic ${Buffer.from(`${config.username}:${config.password}`).toString("base64")}` };
    case "bearer":
      return { authorization: `Bearer ${config.token}` };
    case "header":
      return config.name ? { [config.name]: config.value ?? "" } : {};
    default:
      return {};
  }
}
