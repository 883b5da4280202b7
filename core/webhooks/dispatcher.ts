import { fastVersionRead } from "../access/access-cache.js";
import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import type { DomainEvent } from "../events/types.js";
import type { OutboundResponse, OutboundTransport } from "../ports/outbound.js";
import { OutboundError } from "../ports/outbound.js";
import { storableText } from "../schema/well-formed.js";
import type { AttemptResult, RetryWrite } from "./attempt-records.js";
import { pullAuditEvents } from "./audit-outbox.js";
import { createAttemptRecorder } from "./attempt-records.js";
import { runBounded } from "./bounded-pool.js";
import { deliveryBody, eventData } from "./event-view.js";
import { matchesFilters } from "./filters.js";
import type { GrantBlock, GrantHolders } from "./grant.js";
import { deliveryPrincipal, isBlocked } from "./grant.js";
import { nextStep } from "./schedule.js";
import type { AttemptOutcome } from "./schedule.js";
import { subscribedTo, takesAuditKinds } from "./schema.js";
import type { SendContext, SubscriptionContext, Unseal } from "./send-context.js";
import { createContextReader, holdersOf } from "./send-context.js";
import { signedHeaders } from "./signature.js";
import type { AttemptErrorClass, Delivery, DeliveryAttempt, StoredWebhook } from "./types.js";

export type { Unseal } from "./send-context.js";

export interface DispatcherOptions {
  transport: OutboundTransport;
  unseal: Unseal;
  /** Events fanned out, and deliveries claimed, per step. Default 100. */
  batchSize?: number;
  /** How long a claimed delivery stays this dispatcher's before another may take it. Default 2 min (longer than the longest attempt). */
  leaseMs?: number;
  /** Attempts in flight at once, in all. Default 64. */
  concurrency?: number;
  /** Attempts in flight at once to one target (a URL's scheme, host and port). Default 16. */
  concurrencyPerTarget?: number;
  /** Finished deliveries are purged after this many days. Default 30. */
  retentionDays?: number;
  /** [0, 1) for the retry jitter; Math.random by default (tests fix it). */
  random?: () => number;
  /**
   * Runs the write that records a batch of attempts, retrying it through a passing database
   * error. The core keeps no timers, so the host brings the backoff (server/worker.ts: p-retry,
   * about 3 s in all); without one the write is tried `recordAttempts` times back to back.
   */
  retryRecord?: RetryWrite;
  /**
   * Told the outcome of every attempt as it is made: `delivered` (a 2xx), `retry` (another attempt
   * is scheduled), `failed` (no more attempts, or nothing could be sent: the subscription gone,
   * its grant blocked) or `gone` (the receiver answered 410; the subscription is disabled). For
   * the host's metrics; a throwing hook is ignored.
   */
  onAttempt?: (outcome: AttemptOutcome["kind"]) => void;
}

export const dispatcherDefaults = { batchSize: 100, concurrency: 64, concurrencyPerTarget: 16 } as const;

const testEvent = "webhook.test";
/** Tries of the write that records attempts when the host brings no backoff of its own. */
const recordAttempts = 6;
/**
 * A context read longer ago than this is read again before its attempt: a delivery that waited
 * behind slow receivers for a slot is still sent with the subscription and TLP as of now. The
 * grant (key, owner, clearance, policy) is not trusted even that long: every attempt first
 * compares the organization's access version with the one its context was read at, and reads
 * the context again when a change affecting access has committed since.
 */
const contextFreshMs = 1_000;

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
 * 2. `deliverDue` leases a batch of due deliveries (one unit), reads what their attempts need
 *    (one read unit: each subscription, grant and event once), sends one attempt each outside any
 *    transaction, at most `concurrency` at once and `concurrencyPerTarget` to one target, in
 *    claim order (due time, then id), and records the attempts and their next steps in batched
 *    writes (core/webhooks/attempt-records.ts: one unit per batch, not per delivery). A crash before a record leaves
 *    the lease to expire and the attempt is made again with the same `webhook-id`
 *    (at-least-once, deduplicable).
 *
 * Every time comes from the clock port; `step` runs both once, so tests drive it with a manual
 * clock. Hosts loop it (server/worker.ts).
 */
export function createDispatcher(deps: CaseKitDeps, options: DispatcherOptions) {
  const { storage, clock, ids } = deps;
  const batchSize = options.batchSize ?? dispatcherDefaults.batchSize;
  const leaseMs = options.leaseMs ?? 120_000;
  const limits = { overall: options.concurrency ?? dispatcherDefaults.concurrency, perKey: options.concurrencyPerTarget ?? dispatcherDefaults.concurrencyPerTarget };
  const retentionMs = (options.retentionDays ?? 30) * 86_400_000;
  const random = options.random ?? Math.random;
  const readContexts = createContextReader(deps, options.unseal);
  const accessVersionOf = fastVersionRead(storage);
  const recorder = createAttemptRecorder(storage, options.retryRecord ?? retryBackToBack);

  async function fanOut(): Promise<number> {
    const now = clock.now();
    return storage.transaction(async (tx) => {
      const subscriptions = new Map<string, { webhook: StoredWebhook; principal: Principal | null }[]>();
      const activeIn = async (organizationId: string) => {
        let active = subscriptions.get(organizationId);
        if (!active) {
          // Each subscription's principal now, so filters see only what it may read.
          active = [];
          for (const webhook of await tx.webhooks.active(organizationId)) {
            const principal = deliveryPrincipal(webhook, await holdersOf(tx, webhook), now);
            active.push({ webhook, principal: isBlocked(principal) ? null : principal });
          }
          subscriptions.set(organizationId, active);
        }
        return active;
      };
      // Audit events become outbox events (audit.<action>) where a subscription names an audit
      // kind, in this unit: the claim below fans them out with everything else.
      for (const organizationId of await tx.webhooks.activeOrganizations()) {
        // The subscriptions alone (not their grants): most rounds move nothing.
        const subscribed = (await tx.webhooks.active(organizationId)).some((webhook) => takesAuditKinds(webhook.events));
        await pullAuditEvents(tx, ids, organizationId, subscribed, batchSize, now.toISOString());
      }
      // A group event (a bulk) is expanded only where some subscription takes its name.
      const subscribed = async (organizationId: string, name: string) => (await activeIn(organizationId)).some((s) => subscribedTo(s.webhook.events, name));
      const events = await tx.deliveries.claimEvents(batchSize, now.toISOString(), subscribed);
      const deliveries: Delivery[] = [];
      for (const event of events) {
        const active = await activeIn(event.organizationId);
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
    if (claimed.length === 0) return 0;
    const contexts = await readContexts(claimed);
    const results = recorder();
    let failure: { error: unknown } | undefined;
    try {
      await runBounded(
        claimed,
        limits,
        (delivery) => contexts.get(delivery.id)!.subscription.target,
        async (delivery) => {
          let context = contexts.get(delivery.id)!;
          const stale = clock.now().getTime() - context.readAt > contextFreshMs || (await accessVersionOf(delivery.organizationId)) !== context.accessVersion;
          if (stale) context = (await readContexts([delivery])).get(delivery.id)!;
          const result = await attempt(delivery, context);
          results.add(result);
          try {
            options.onAttempt?.(result.outcome.kind);
          } catch {
            // A failing metrics hook never stops a delivery.
          }
        },
      );
    } catch (error) {
      failure = { error };
    }
    // What was sent is recorded even when a later attempt could not be made.
    await results.settled();
    if (failure) throw failure.error;
    return claimed.length;
  }

  /**
   * The principal a subscription's attempts are made as at `at`: resolved once per context read,
   * since the grant resolves the same way until its key expires (the only part that depends on
   * the time), and again for every attempt after that.
   */
  const principals = new WeakMap<SubscriptionContext, Principal | GrantBlock>();
  function principalAt(subscription: SubscriptionContext, webhook: StoredWebhook, holders: GrantHolders, at: Date): Principal | GrantBlock {
    const expiresAt = holders.key?.expiresAt ?? null;
    if (expiresAt !== null && Date.parse(expiresAt) <= at.getTime()) return deliveryPrincipal(webhook, holders, at);
    let principal = principals.get(subscription);
    if (!principal) principals.set(subscription, (principal = deliveryPrincipal(webhook, holders, at)));
    return principal;
  }

  /** One attempt of one leased delivery: sign, send, and what to record. */
  async function attempt(delivery: Delivery, context: SendContext): Promise<AttemptResult> {
    const { subscription, event } = context;
    const { webhook, holders, signing } = subscription;
    const requestedAt = clock.now();
    const settled = (disabling?: AttemptResult["disabling"]): AttemptResult => ({ delivery, outcome: { kind: "failed" }, now: requestedAt, record: null, ...(disabling ? { disabling } : {}) });
    // The subscription was deleted or disabled meanwhile: nothing to send, nothing to retry.
    if (!webhook || !event || !holders || webhook.status !== "active") return settled();
    // TLP and scopes are checked again at send time, as the grant resolves now (core/webhooks/grant.ts).
    const principal = principalAt(subscription, webhook, holders, requestedAt);
    if (isBlocked(principal)) {
      // Like their keys, the subscriptions of an inactive owner or a suspended key stop at once;
      // one whose key is gone for good is disabled, saying why.
      return settled(principal.kind === "gone" ? { webhook, reason: principal.reason } : undefined);
    }
    const previousSigns = webhook.previousSecretExpiresAt !== null && Date.parse(webhook.previousSecretExpiresAt) > requestedAt.getTime();
    const previous = previousSigns ? signing?.previous : null;
    // Secrets sealed under another key-hash secret cannot sign: retrying cannot help.
    if (!signing || (previous && "broken" in previous)) return settled();
    const body = JSON.stringify(deliveryBody(event, principal, context.hiddenFieldsFor(principal.tlpClearance)));
    const secrets = previous ? [signing.secret, previous.clear] : [signing.secret];
    const headers: Record<string, string> = {
      ...webhook.headers,
      ...signing.auth,
      "content-type": "application/json",
      "user-agent": "casekit-webhooks",
      ...signedHeaders(secrets, delivery.id, requestedAt, body),
    };

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
    return { delivery, outcome, now: after, record, ...(outcome.kind === "gone" ? { disabling: { webhook, reason: "The receiver answered 410 Gone" } } : {}) };
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
