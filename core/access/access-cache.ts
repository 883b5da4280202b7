import { rememberBounded } from "../bounded-map.js";
import type { CaseKitDeps } from "../context.js";
import type { Organization } from "../organizations/types.js";
import type { KeyAccess, Storage } from "../ports/storage.js";
import type { Principal } from "./principal.js";

/** Keys (and organizations) the cache holds at most by default; the least recently used go first. */
export const defaultAccessCacheEntries = 10_000;

/**
 * What a request's access is decided from — a key, its owner, its organization and the policy —
 * kept in memory between requests, with synchronous invalidation: every request first reads the
 * organization's access version (one primary-key lookup; Storage.accessVersion when the adapter
 * has a fast path) and reuses what it holds only when the version is the one it was loaded at.
 * The adapters move the version in the same transaction as every change that affects access
 * (a key or user written, the policy changed: database triggers, see the migrations), so the first
 * request that starts after such a change commits, on this host or on any other sharing the
 * database, reloads. Nothing is time-based: a cached entry is never trusted without that check.
 *
 * Entries are loaded in one statement (ApiKeyRepository.findAccessByHash), so the version stored
 * with an entry is exactly the one its data was read at; a version read that is newer than the
 * entry only costs a reload. Unknown hashes are not cached: a miss is always asked of storage.
 */
export interface AccessCache {
  /** The key with this hash as committed now, with its owner and organization; null when none has it. */
  keyByHash(hash: string): Promise<KeyAccess | null>;
  /**
   * The entry held for this hash, unchecked (no version read): nothing may be decided on it. Only
   * for work that is kept when keyByHash then hands back this very entry and undone or spent
   * again otherwise (the limiter's early spend, RateLimiter.spendEarly).
   */
  peek(hash: string): KeyAccess | undefined;
  /** The organization as committed now, or null. */
  organization(organizationId: string): Promise<Organization | null>;
  /** Records that `principal` was authenticated against `organization` as committed at the request's start. */
  vouch(principal: Principal, organization: Organization): void;
  /**
   * The organization `principal` acts in: the one it was vouched with in this request (no second
   * read), else `organization()`.
   */
  organizationFor(principal: Principal): Promise<Organization | null>;
  /** The organization `principal` was vouched with in this request, at once; undefined when it was not. */
  vouchedFor(principal: Principal): Organization | undefined;
  /** Entries held now (keys, organizations): for tests and metrics. */
  size(): { keys: number; organizations: number };
}

export function createAccessCache(deps: Pick<CaseKitDeps, "storage">, options: { maxEntries?: number } = {}): AccessCache {
  const { storage } = deps;
  const maxEntries = Math.max(0, Math.floor(options.maxEntries ?? defaultAccessCacheEntries));
  const keys = new Map<string, KeyAccess>();
  const organizations = new Map<string, { version: number; organization: Organization }>();
  const vouched = new WeakMap<Principal, Organization>();
  const versionOf = fastVersionRead(storage);

  return {
    async keyByHash(hash) {
      const cached = keys.get(hash);
      if (cached !== undefined && (await versionOf(cached.organization.id)) === cached.accessVersion) {
        // Most recently used last; unless a concurrent request has replaced it meanwhile.
        if (keys.get(hash) === cached) {
          keys.delete(hash);
          keys.set(hash, cached);
        }
        return cached;
      }
      const loaded = await storage.read((tx) => tx.apiKeys.findAccessByHash(hash));
      if (loaded !== null) rememberBounded(keys, hash, loaded, maxEntries);
      return loaded;
    },

    peek: (hash) => keys.get(hash),

    async organization(organizationId) {
      const cached = organizations.get(organizationId);
      // The version first, then the organization: an organization read after its version is at
      // least as new as that version, so the pair is never trusted past a change.
      const version = await versionOf(organizationId);
      if (version === null) {
        organizations.delete(organizationId);
        return null;
      }
      if (cached !== undefined && cached.version === version) {
        if (organizations.get(organizationId) === cached) {
          organizations.delete(organizationId);
          organizations.set(organizationId, cached);
        }
        return cached.organization;
      }
      const organization = await storage.read((tx) => tx.organizations.findById(organizationId));
      if (organization === null) organizations.delete(organizationId);
      else rememberBounded(organizations, organizationId, { version, organization }, maxEntries);
      return organization;
    },

    vouch(principal, organization) {
      vouched.set(principal, organization);
    },

    async organizationFor(principal) {
      return vouched.get(principal) ?? this.organization(principal.organizationId);
    },

    vouchedFor(principal) {
      return vouched.get(principal);
    },

    size: () => ({ keys: keys.size, organizations: organizations.size }),
  };
}


/** The organization's access version as committed now, through the adapter's fast path when it has one. */
export function fastVersionRead(storage: Storage): (organizationId: string) => Promise<number | null> {
  if (storage.accessVersion) return (organizationId) => storage.accessVersion!(organizationId);
  return (organizationId) => storage.read((tx) => tx.organizations.accessVersion(organizationId));
}
