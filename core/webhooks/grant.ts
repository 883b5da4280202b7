import { cappedByKey, requireHolds } from "../access/grants.js";
import type { Principal } from "../access/principal.js";
import { resolvePrincipal } from "../access/resolve-principal.js";
import type { StoredApiKey } from "../keys/types.js";
import type { StoredUser } from "../users/types.js";
import type { StoredWebhook, WebhookGrant } from "./types.js";

/**
 * A subscription is a standing read by whoever created it, so it holds what they held then and
 * never more: "nobody grants what they do not hold" (core/access/grants.ts), applied to webhooks.
 *
 * - Creating one records the creator's grant: the key (if a key created it), its clearance and
 *   scopes at that moment.
 * - Every delivery is made as the principal the grant resolves to at send time
 *   (`deliveryPrincipal`): the recorded clearance and scopes, capped by the key's current ones and
 *   by the owner's current clearance and role. A later reduction of the key or the owner narrows
 *   what the subscription delivers; nothing ever widens it.
 * - Changing where its data goes or what it selects needs at least its grant (`requireHoldsGrant`).
 */

/** What a subscription created by `principal` records. */
export function grantOf(principal: Principal): WebhookGrant {
  return { keyId: principal.keyId, tlpClearance: principal.tlpClearance, scopes: [...principal.scopes] };
}

/**
 * Nobody changes a subscription that holds more than they do: every change (its url, events,
 * filters, method, headers, receiver credentials, name … or turning it back on), and taking a new
 * signing secret, needs every scope and at least the clearance of its grant (403 missing_scope or
 * tlp_restricted). Turning it off and deleting it only stop data, so they need no more. The grant
 * itself never changes.
 */
export function requireHoldsGrant(principal: Principal, webhook: Pick<StoredWebhook, "grant">): void {
  requireHolds(principal, { scopes: webhook.grant.scopes, tlpClearance: webhook.grant.tlpClearance }, "change a subscription that holds");
}

/**
 * Why a subscription may not deliver now, or null when it may. A key that is revoked, deleted or
 * expired is gone for good (`gone`: the subscription is disabled); a suspended key, or an owner
 * who is not active, only holds deliveries back while it lasts (`held`).
 */
export type GrantBlock = { kind: "gone"; reason: string } | { kind: "held" };

export interface GrantHolders {
  owner: StoredUser | null;
  /** The grant's key, when it names one and the key still exists. */
  key: StoredApiKey | null;
}

/**
 * The principal a delivery is made as at `now`, or why there is none: the grant's clearance and
 * scopes, capped by its key's current ones and then by the owner (resolvePrincipal: an active
 * owner, scopes within their role, clearance within theirs).
 */
export function deliveryPrincipal(webhook: Pick<StoredWebhook, "grant">, holders: GrantHolders, now: Date): Principal | GrantBlock {
  const { grant } = webhook;
  const { owner, key } = holders;
  if (grant.keyId !== null) {
    if (!key) return { kind: "gone", reason: "The API key that created it was deleted" };
    if (key.status === "revoked") return { kind: "gone", reason: "The API key that created it was revoked" };
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()) return { kind: "gone", reason: "The API key that created it has expired" };
    if (key.status !== "active") return { kind: "held" };
  }
  if (!owner || owner.status !== "active") return { kind: "held" };
  try {
    return resolvePrincipal(owner, { authenticatedBy: key ? "key" : "session", keyId: grant.keyId, ...cappedByKey(grant, key) });
  } catch {
    // Rights that do not resolve (a stored value out of range, say) deliver nothing: fail closed.
    return { kind: "held" };
  }
}

export function isBlocked(value: Principal | GrantBlock): value is GrantBlock {
  return "kind" in value;
}
