import { hash } from "node:crypto";
import type { AccessCache } from "../access/access-cache.js";
import { rememberBounded } from "../bounded-map.js";
import { checkedOrigin, originClaimSchema } from "../access/claims.js";
import type { Principal, RequestOrigin } from "../access/principal.js";
import { withOrigin } from "../access/principal.js";
import { resolvePrincipal } from "../access/resolve-principal.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { KeyAccess } from "../ports/storage.js";
import { hashKeySecret, isWellFormedKeySecret, longestKeySecret } from "./secret.js";
import type { RefusalLog } from "../audit/refusals.js";

/** lastUsedAt is refreshed at most this often, so a busy key does not write on every request. */
const lastUsedResolutionMs = 60_000;

/** Secrets whose key hash is remembered at most; past it the oldest go. */
const maxRememberedHashes = 10_000;

/**
 * Turns a key secret into a principal, or throws the 401 code that says why not. Junk is refused
 * by its checksum before any storage lookup. The key, its owner and organization come from the
 * access cache, which checks the organization's access version on every call: a key suspended or
 * revoked, an owner disabled or a clearance lowered stops (or narrows) the key on the very next
 * request, on every host. Expiry is checked against the clock on every call.
 */
export function createKeyAuthenticator(deps: CaseKitDeps, access: AccessCache, refusals: RefusalLog) {
  const { storage, clock, config } = deps;
  /** The principal an entry resolves to (without origin), built once per cached entry. */
  const principals = new WeakMap<KeyAccess, Principal>();
  /** When this process last wrote an entry's lastUsedAt (the cached key's own value goes stale). */
  const touched = new WeakMap<KeyAccess, number>();
  /**
   * The key hash (HMAC with the deployment's secret, 1.5 µs a request) of secrets that named a
   * key, by the secret's plain SHA-256 (0.25 µs): a pure function remembered, so it grants
   * nothing (every check below still runs on every request). It holds digests, never a secret: a
   * secret carries at least 128 random bits, so its digest gives it away no more than the stored
   * hash does. Only secrets that named a key go in, so junk cannot churn it.
   */
  const keyHashes = new Map<string, string>();

  /**
   * The principal the held entry of `keyHash` gives, before the access version confirms it: only
   * for an entry that authenticated before (its principal is built) and whose key is active and
   * unexpired. A fresh object, vouched with the held organization, so the limiter can meter it.
   */
  function candidateOf(keyHash: string): Principal | undefined {
    const held = access.peek(keyHash);
    const base = held === undefined ? undefined : principals.get(held);
    if (held === undefined || base === undefined || held.key.status !== "active") return undefined;
    if (held.key.expiresAt !== null && Date.parse(held.key.expiresAt) <= clock.now().getTime()) return undefined;
    const candidate: Principal = { ...base };
    access.vouch(candidate, held.organization);
    return candidate;
  }

  /**
   * `alongside`, when given, is called with the candidate principal (candidateOf) before the key
   * check waits on storage, so work that needs only the key's identity (metering, on a remote
   * store) overlaps the check. The check decides as it would without it.
   */
  return async function authenticateKey(secret: string, origin?: RequestOrigin, alongside?: (candidate: Principal) => void): Promise<Principal> {
    // An embedder may pass anything: only text of a secret's length is hashed, however long the junk.
    if (typeof secret !== "string" || secret.length > longestKeySecret) throw new CaseKitError("invalid_key");
    const digest = hash("sha256", secret, "base64");
    const remembered = keyHashes.get(digest);
    // A remembered secret was well formed when it named a key (its digest stands for it).
    if (remembered === undefined && !isWellFormedKeySecret(secret)) throw new CaseKitError("invalid_key");
    const keyHash = remembered ?? hashKeySecret(secret, config.keyHashSecret);
    if (alongside !== undefined) {
      const candidate = candidateOf(keyHash);
      if (candidate !== undefined) alongside(candidate);
    }
    const found = await access.keyByHash(keyHash);
    if (!found) throw new CaseKitError("invalid_key");
    if (remembered === undefined) rememberBounded(keyHashes, digest, keyHash, maxRememberedHashes);
    const { key } = found;
    const now = clock.now().getTime();
    if (key.status === "revoked") return refuse(refusals, key, origin, "key_revoked");
    if (key.status === "suspended") return refuse(refusals, key, origin, "key_suspended");
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return refuse(refusals, key, origin, "key_expired");
    let base = principals.get(found);
    if (base === undefined) {
      // Throws (owner_inactive, validation_failed) on every call for such an entry: only successes are kept.
      try {
        base = resolvePrincipal(found.owner, { authenticatedBy: "key", keyId: key.id, tier: key.tier, scopes: key.scopes, tlpClearance: key.tlpClearance });
      } catch (error) {
        if (error instanceof CaseKitError && error.code === "owner_inactive") return refuse(refusals, key, origin, "owner_inactive", error.message);
        throw error;
      }
      principals.set(found, base);
    }
    // A fresh object per request: it carries the request's origin, and the limiter finds the
    // organization it was authenticated against by it (AccessCache.vouch).
    const principal = withOrigin(base, origin ? checkedOrigin(origin) : undefined);
    access.vouch(principal, found.organization);

    const lastUsed = touched.get(found) ?? (key.lastUsedAt === null ? null : Date.parse(key.lastUsedAt));
    if (lastUsed === null || now - lastUsed >= lastUsedResolutionMs) {
      touched.set(found, now);
      // Bookkeeping, not access: the request does not wait for it, or a key's first request of
      // the minute would wait for the writer behind another client's long unit of work (SQLite
      // has one writer). It does not move the access version (the triggers leave lastUsedAt out).
      // A touch that fails is made again by the key's next request.
      const at = new Date(now).toISOString();
      void storage.transaction((tx) => tx.apiKeys.touchLastUsed(key.organizationId, key.id, at)).catch(() => touched.delete(found));
    }
    return principal;
  };
}

/**
 * Refuses a key that exists. It names its organization, so the refusal goes to that
 * organization's audit log (aggregated, core/audit/refusals.ts); a secret matching no key names
 * nobody and is not audited. A function of its own, not a closure made on every request.
 */
async function refuse(refusals: RefusalLog, key: KeyAccess["key"], origin: RequestOrigin | undefined, code: "key_revoked" | "key_suspended" | "key_expired" | "owner_inactive", detail?: string): Promise<never> {
  await refusals.note({
    organizationId: key.organizationId,
    actor: { type: "apiKey", id: key.id, onBehalfOf: key.userId },
    // An origin the schema refuses is left out: the refusal's own code must still answer.
    ...(origin ? { origin: originClaimSchema.safeParse({ origin }).data?.origin ?? {} } : {}),
    action: "key.authentication_failed",
    target: { type: "key", id: key.id },
    reason: code,
  });
  throw new CaseKitError(code, detail);
}
