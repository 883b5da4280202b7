import { fastVersionRead } from "../access/access-cache.js";
import { cappedByKey } from "../access/grants.js";
import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { resolvePrincipal } from "../access/resolve-principal.js";
import type { Scope } from "../access/scopes.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";

/**
 * A read that outlives its request (an export, an event stream) keeps its caller's rights only
 * while the caller still holds them. `current()` answers the principal as committed now: the
 * request's principal narrowed by its key's and owner's current state (never widened), or throws
 * the 401/403 code a new request would get (key_revoked, key_suspended, key_expired,
 * owner_inactive, missing_scope). The key and owner are re-read only when the organization's
 * access version moved (core/access/access-cache.ts: every change to access moves it, in the
 * change's transaction), so a check between pages costs one primary-key lookup.
 */
export function standingAccess(deps: Pick<CaseKitDeps, "storage" | "clock">, principal: Principal, scope: Scope) {
  const versionOf = fastVersionRead(deps.storage);
  let seenVersion: number | null | undefined;
  let current = principal;
  let keyExpiresAt: string | null = null;

  async function reload(): Promise<Principal> {
    const { key, owner } = await deps.storage.read(async (tx) => ({
      key: principal.keyId === null ? null : await tx.apiKeys.findById(principal.organizationId, principal.keyId),
      owner: await tx.users.findById(principal.organizationId, principal.userId),
    }));
    if (principal.keyId !== null) {
      if (!key || key.status === "revoked") throw new CaseKitError("key_revoked");
      if (key.status === "suspended") throw new CaseKitError("key_suspended");
    }
    keyExpiresAt = key?.expiresAt ?? null;
    if (!owner) throw new CaseKitError("owner_inactive");
    const narrowed = resolvePrincipal(owner, { authenticatedBy: principal.authenticatedBy, keyId: principal.keyId, tier: principal.tier, ...cappedByKey(principal, key) });
    return principal.origin ? { ...narrowed, origin: principal.origin } : narrowed;
  }

  return {
    async current(): Promise<Principal> {
      const version = await versionOf(principal.organizationId);
      if (version === null) throw new CaseKitError("owner_inactive", "The organization no longer exists");
      if (version !== seenVersion) {
        current = await reload();
        seenVersion = version;
      }
      // Expiry is time, not a change that moves the version: checked on every call, by the clock port.
      if (keyExpiresAt !== null && Date.parse(keyExpiresAt) <= deps.clock.now().getTime()) throw new CaseKitError("key_expired");
      requireScope(current, scope);
      return current;
    },
  };
}
