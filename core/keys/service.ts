import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { requireHolds } from "../access/grants.js";
import { withinClearance } from "../access/clearance.js";
import { recordChange } from "../audit/record-change.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError, invalidField } from "../errors.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";
import { defaultTierFor, keyGrantOptions } from "./grant-options.js";
import type { KeyGrantOptions } from "./grant-options.js";
import { apiKeyCreateSchema, apiKeyListQuerySchema } from "./schema.js";
import { displayStart, generateKeySecret, hashKeySecret } from "./secret.js";
import type { ApiKey, KeyStatus, StoredApiKey } from "./types.js";

const dayMs = 86_400_000;

/** Which status changes each action makes, from which statuses. Revocation is final. */
const statusActions = {
  suspend: { from: ["active"], to: "suspended" },
  resume: { from: ["suspended"], to: "active" },
  revoke: { from: ["active", "suspended"], to: "revoked" },
} as const satisfies Record<string, { from: readonly KeyStatus[]; to: KeyStatus }>;

export type KeyStatusAction = keyof typeof statusActions;

/**
 * Suspending, resuming, revoking or deleting a key changes what it grants, so a key manager may do
 * it only to keys within their own scopes and clearance (tiers are not compared: a rate budget
 * hands the caller nothing). A person always manages their own keys (sessions see no others).
 */
function requireMayChange(principal: Principal, key: StoredApiKey): void {
  if (principal.authenticatedBy === "session" && key.userId === principal.userId) return;
  requireHolds(principal, { scopes: key.scopes, tlpClearance: key.tlpClearance }, "change a key with");
}

export function toPublicKey(stored: StoredApiKey): ApiKey {
  const { hash: _hash, ...key } = stored;
  return key;
}

/**
 * API key management. Two kinds of caller may manage keys: a person signed in to the account area
 * (authenticatedBy "session"), who manages their own keys only, and a key manager (scope
 * `keys:write`), who manages every key of the organization. A key never grants more than its
 * creator holds (scopes, clearance, tier: `requireHolds`), nor more than the organization's policy
 * allows; a key manager changes only keys within their own scopes and clearance.
 */
export function createKeyService(deps: CaseKitDeps) {
  const { storage, clock, ids, config } = deps;

  /** Self-service callers see only their own keys; key managers see the organization's. */
  function ownerScope(principal: Principal): string | undefined {
    if (principal.authenticatedBy === "session") return principal.userId;
    requireScope(principal, "keys:write");
    return undefined;
  }

  async function load(tx: UnitOfWork, principal: Principal, id: string): Promise<StoredApiKey> {
    const owner = ownerScope(principal);
    const key = await tx.apiKeys.findById(principal.organizationId, id);
    if (!key || (owner !== undefined && key.userId !== owner)) throw new CaseKitError("not_found", `No API key ${id}`);
    return key;
  }

  return {
    async create(principal: Principal, input: unknown): Promise<ApiKey & { key: string }> {
      ownerScope(principal);
      const body = parse(apiKeyCreateSchema, input);
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const organization = await tx.organizations.findById(principal.organizationId);
        if (!organization) throw new CaseKitError("not_found", "No such organization");
        const policy = organization.policy;

        const tlpClearance = body.tlpClearance ?? Math.min(principal.tlpClearance, policy.maxKeyTlp);
        const tier = body.tier ?? defaultTierFor(principal);
        requireHolds(principal, { scopes: body.scopes, tlpClearance, tier }, "grant");
        if (!withinClearance(tlpClearance, policy.maxKeyTlp)) {
          throw new CaseKitError("organization_restricted", `The organization allows keys up to TLP ${policy.maxKeyTlp}`);
        }
        if (!policy.allowedTiers.includes(tier)) {
          throw new CaseKitError("organization_restricted", `The organization does not allow ${tier} keys`);
        }
        if (body.expiresAt !== undefined && Date.parse(body.expiresAt) <= now.getTime()) {
          throw new CaseKitError("invalid_expiry", "expiresAt: must be in the future", [{ path: "expiresAt", message: "must be in the future" }]);
        }
        if (body.expiresAt === undefined && (policy.requireKeyExpiry || policy.maxKeyLifetimeDays !== null)) {
          throw new CaseKitError("organization_restricted", "The organization requires keys to expire: give expiresAt");
        }
        if (body.expiresAt !== undefined && policy.maxKeyLifetimeDays !== null && Date.parse(body.expiresAt) > now.getTime() + policy.maxKeyLifetimeDays * dayMs) {
          throw new CaseKitError("organization_restricted", `The organization allows keys to live at most ${policy.maxKeyLifetimeDays} days`);
        }

        const secret = generateKeySecret(config.keyEnvironment);
        const at = now.toISOString();
        const stored: StoredApiKey = {
          id: ids.next("key"),
          organizationId: principal.organizationId,
          userId: principal.userId,
          name: body.name,
          description: body.description ?? null,
          tier,
          scopes: body.scopes,
          tlpClearance,
          status: "active",
          expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
          lastUsedAt: null,
          start: displayStart(secret),
          hash: hashKeySecret(secret, config.keyHashSecret),
          createdAt: at,
          updatedAt: at,
          createdBy: principal.userId,
        };
        await tx.apiKeys.insert(stored);
        const key = toPublicKey(stored);
        await recordChange(deps, tx, principal, { name: "key.created", resourceType: "key", before: null, after: key, tlp: null, now });
        return { ...key, key: secret };
      });
    },

    /** What the caller may give a new key (see grant-options.ts): what a create form offers. */
    async grantOptions(principal: Principal): Promise<KeyGrantOptions> {
      ownerScope(principal);
      const organization = await storage.read((tx) => tx.organizations.findById(principal.organizationId));
      if (!organization) throw new CaseKitError("not_found", "No such organization");
      return keyGrantOptions(principal, organization.policy);
    },

    async list(principal: Principal, query: unknown): Promise<{ data: ApiKey[]; nextCursor: string | null }> {
      const owner = ownerScope(principal);
      const { limit, cursor, userId, ...filters } = parse(apiKeyListQuerySchema, query);
      const rows = await storage.read((tx) =>
        tx.apiKeys.list(
          principal.organizationId,
          { ...filters, ...(owner !== undefined ? { userId: owner } : userId !== undefined ? { userId } : {}) },
          { limit: limit + 1, beforeId: decodeCursor(cursor) },
        ),
      );
      return toPage(rows.map(toPublicKey), limit);
    },

    async get(principal: Principal, id: string): Promise<ApiKey> {
      return toPublicKey(await storage.read((tx) => load(tx, principal, id)));
    },

    async changeStatus(principal: Principal, id: string, action: KeyStatusAction): Promise<ApiKey> {
      // An embedder may pass any string: only the three actions are actions (never an Object method).
      if (!Object.hasOwn(statusActions, action)) throw invalidField("action", "must be suspend, resume or revoke");
      const rule = statusActions[action];
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await load(tx, principal, id);
        requireMayChange(principal, before);
        if (!(rule.from as readonly KeyStatus[]).includes(before.status)) {
          throw new CaseKitError("invalid_transition", `A ${before.status} key cannot be ${action}d`);
        }
        const after: StoredApiKey = { ...before, status: rule.to, updatedAt: now.toISOString() };
        await tx.apiKeys.update(after);
        await recordChange(deps, tx, principal, {
          name: `key.${rule.to}`,
          resourceType: "key",
          before: toPublicKey(before),
          after: toPublicKey(after),
          tlp: null,
          now,
        });
        return toPublicKey(after);
      });
    },

    /** Removes the key for good; the audit trail keeps what it was. */
    async delete(principal: Principal, id: string): Promise<ApiKey> {
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const stored = await load(tx, principal, id);
        requireMayChange(principal, stored);
        const key = toPublicKey(stored);
        await tx.apiKeys.delete(principal.organizationId, id);
        await recordChange(deps, tx, principal, { name: "key.deleted", resourceType: "key", before: null, after: key, tlp: null, now, gone: true });
        return key;
      });
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
