import type { Principal, RequestOrigin } from "../access/principal.js";
import { resolvePrincipal } from "../access/resolve-principal.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import { hashKeySecret, isWellFormedKeySecret } from "./secret.js";

/** lastUsedAt is refreshed at most this often, so a busy key does not write on every request. */
const lastUsedResolutionMs = 60_000;

/**
 * Turns a key secret into a principal, or throws the 401 code that says why not. Junk is refused
 * by its checksum before any storage lookup. The owner is read on every call, so disabling a user
 * stops their keys on the very next request.
 */
export function createKeyAuthenticator(deps: CaseKitDeps) {
  const { storage, clock, config } = deps;

  return async function authenticateKey(secret: string, origin?: RequestOrigin): Promise<Principal> {
    if (!isWellFormedKeySecret(secret)) throw new CaseKitError("invalid_key");
    const hash = hashKeySecret(secret, config.keyHashSecret);
    const found = await storage.read((tx) => tx.apiKeys.findByHash(hash));
    if (!found) throw new CaseKitError("invalid_key");
    const { key, owner } = found;
    const now = clock.now();
    if (key.status === "revoked") throw new CaseKitError("key_revoked");
    if (key.status === "suspended") throw new CaseKitError("key_suspended");
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()) throw new CaseKitError("key_expired");
    const principal = resolvePrincipal(owner, {
      authenticatedBy: "key",
      keyId: key.id,
      tier: key.tier,
      scopes: key.scopes,
      tlpClearance: key.tlpClearance,
      ...(origin ? { origin } : {}),
    });

    if (key.lastUsedAt === null || now.getTime() - Date.parse(key.lastUsedAt) >= lastUsedResolutionMs) {
      // Bookkeeping, not access: the request does not wait for it, or a key's first request of
      // the minute would wait for the writer behind another client's long unit of work (SQLite
      // has one writer). A touch that fails is made again by the key's next request.
      void storage.transaction((tx) => tx.apiKeys.touchLastUsed(key.organizationId, key.id, now.toISOString())).catch(() => undefined);
    }
    return principal;
  };
}
