import type { CaseKitDeps } from "../context.js";
import { definitionsOf } from "../custom-fields/definitions.js";
import { hiddenKeys } from "../custom-fields/floor.js";
import type { CustomFieldDefinition } from "../custom-fields/types.js";
import type { DomainEvent } from "../events/types.js";
import { auditEventResourceType } from "./audit-outbox.js";
import { splitItemId } from "../log/groups.js";
import type { UnitOfWork } from "../ports/storage.js";
import { effectiveTlp } from "../tlp/effective.js";
import { inheritedTlp } from "../tlp/lineage.js";
import type { GrantHolders } from "./grant.js";
import type { Delivery, StoredWebhook } from "./types.js";

/** How sealed secrets become usable again; the webhook service's sealing provides it. */
export type Unseal = (sealed: string) => string;

/** A subscription as an attempt needs it, read once per batch for all its deliveries. */
export interface SubscriptionContext {
  /** Null: deleted meanwhile. */
  webhook: StoredWebhook | null;
  holders: GrantHolders | null;
  /** The secrets and receiver credentials in clear, or null when they do not open with this deployment's key. */
  signing: Signing | null;
  /** Where its attempts go (the URL's origin): the key of the per-target bound. */
  target: string;
}

export interface Signing {
  secret: string;
  /** The previous secret during a rotation: in clear, or `broken` when it does not open (fatal only while it still signs). */
  previous: { clear: string } | { broken: true } | null;
  /** The credential headers `authType` and `authConfig` make. */
  auth: Record<string, string>;
}

/** What one attempt of one delivery is made from, and when it was read (`clock.now()`, ms). */
export interface SendContext {
  subscription: SubscriptionContext;
  /** Its TLP as of the read (a parent raised since the event raises it); null: the event is gone. */
  event: DomainEvent | null;
  readAt: number;
  /**
   * The organization's access version the context was read at (core/access/access-cache.ts):
   * a key revoked, an owner disabled or lowered, a policy changed since moves it.
   */
  accessVersion: number | null;
  /** The custom fields whose values a reader cleared to `clearance` may not see (an audit event's view redacts them). */
  hiddenFieldsFor(clearance: number): ReadonlySet<string>;
}

/** The owner and the key a grant names (a subscription's, an audit sink's), as they are now. */
export async function holdersOf(tx: UnitOfWork, webhook: Pick<StoredWebhook, "organizationId" | "createdBy" | "grant">): Promise<GrantHolders> {
  const owner = webhook.createdBy ? await tx.users.findById(webhook.organizationId, webhook.createdBy) : null;
  const key = webhook.grant.keyId ? await tx.apiKeys.findById(webhook.organizationId, webhook.grant.keyId) : null;
  return { owner, key };
}

/**
 * Reads the send contexts of a batch of deliveries in one read unit: each subscription (with its
 * grant's holders and its secrets opened) and each event (with its TLP as of now) once, however
 * many of the batch's deliveries share it. Group rows (a bulk's one event for many records) read
 * lately are kept across batches: stored events never change, so a kept copy is never stale.
 */
export function createContextReader(deps: CaseKitDeps, unseal: Unseal) {
  const { storage, clock } = deps;
  const groups = new Map<string, DomainEvent[]>();
  const keptGroups = 2;

  /** The event a delivery names: a stored event, or one record's event of a group row. */
  async function storedEventOf(tx: UnitOfWork, delivery: Delivery): Promise<DomainEvent | null> {
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

  async function eventOf(tx: UnitOfWork, delivery: Delivery): Promise<DomainEvent | null> {
    const stored = await storedEventOf(tx, delivery);
    // A parent raised since the event (a case made RED) raises the event too: TLP is as of now.
    return stored && { ...stored, tlp: stored.tlp === null ? null : effectiveTlp(stored.tlp, [await inheritedTlp(tx, stored.organizationId, stored.resourceType, stored.payload)]) };
  }

  async function subscriptionOf(tx: UnitOfWork, delivery: Delivery): Promise<SubscriptionContext> {
    const webhook = await tx.webhooks.findById(delivery.organizationId, delivery.webhookId);
    if (!webhook) return { webhook: null, holders: null, signing: null, target: "" };
    return { webhook, holders: await holdersOf(tx, webhook), signing: signingOf(webhook, unseal), target: targetOf(webhook.url) };
  }

  return async function read(deliveries: readonly Delivery[]): Promise<Map<string, SendContext>> {
    return storage.read(async (tx) => {
      const readAt = clock.now().getTime();
      // Each organization's version first: what is read after it is at least that new.
      const versions = new Map<string, number | null>();
      for (const { organizationId } of deliveries) {
        if (!versions.has(organizationId)) versions.set(organizationId, await tx.organizations.accessVersion(organizationId));
      }
      const subscriptions = new Map<string, SubscriptionContext>();
      const events = new Map<string, DomainEvent | null>();
      const contexts = new Map<string, SendContext>();
      // Only an audit event's view needs the organization's custom fields: read once per organization then.
      const definitions = new Map<string, readonly CustomFieldDefinition[]>();
      const noDefinitions: readonly CustomFieldDefinition[] = [];
      for (const delivery of deliveries) {
        const subscriptionKey = `${delivery.organizationId}/${delivery.webhookId}`;
        let subscription = subscriptions.get(subscriptionKey);
        if (!subscription) subscriptions.set(subscriptionKey, (subscription = await subscriptionOf(tx, delivery)));
        const eventKey = `${delivery.organizationId}/${delivery.eventId}`;
        let event = events.get(eventKey);
        if (event === undefined) events.set(eventKey, (event = await eventOf(tx, delivery)));
        let fields = noDefinitions;
        if (event?.resourceType === auditEventResourceType) {
          fields = definitions.get(delivery.organizationId) ?? (await definitionsOf(deps, tx, delivery.organizationId));
          definitions.set(delivery.organizationId, fields);
        }
        const hiddenFieldsFor = (clearance: number) => hiddenKeys(fields, clearance);
        contexts.set(delivery.id, { subscription, event, readAt, accessVersion: versions.get(delivery.organizationId) ?? null, hiddenFieldsFor });
      }
      return contexts;
    });
  };
}

export type ContextReader = ReturnType<typeof createContextReader>;

function targetOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Opens the secrets; null when the current ones do not open (sealed under another key-hash secret: retrying cannot help). */
function signingOf(webhook: StoredWebhook, unseal: Unseal): Signing | null {
  try {
    const secret = unseal(webhook.secret);
    const auth = authHeaders(webhook, unseal);
    let previous: Signing["previous"] = null;
    if (webhook.previousSecret) {
      try {
        previous = { clear: unseal(webhook.previousSecret) };
      } catch {
        previous = { broken: true };
      }
    }
    return { secret, previous, auth };
  } catch {
    return null;
  }
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
