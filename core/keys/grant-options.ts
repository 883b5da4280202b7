import { z } from "zod";
import type { Principal } from "../access/principal.js";
import { tierAtMost } from "../access/grants.js";
import { allScopes } from "../access/scopes.js";
import type { Scope } from "../access/scopes.js";
import type { OrganizationPolicy } from "../organizations/policy.js";
import { tlpSchema } from "../schema/common.js";
import { keyTiers } from "./types.js";
import type { KeyTier } from "./types.js";

/**
 * What a caller may put on a new key, as the key service's create checks it (requireHolds, then
 * the organization's policy): a form offers exactly this and nothing more. The service still
 * enforces every rule on create; this only says in advance what will pass.
 */
export interface KeyGrantOptions {
  /** Every scope the caller holds, in the order of the scope list. */
  scopes: Scope[];
  /** The highest clearance a new key may get: the caller's, capped by the policy. */
  maxTlpClearance: number;
  /** Tiers the policy allows and the caller's own tier (when it has one) covers, lowest first. */
  tiers: KeyTier[];
  /** The tier a key gets without one. */
  defaultTier: KeyTier;
  /** The key must carry `expiresAt` (required by the policy, or implied by a longest lifetime). */
  expiryRequired: boolean;
  /** The longest lifetime the policy allows, in days; null for no limit. */
  maxLifetimeDays: number | null;
}

export const keyGrantOptionsSchema = z
  .object({
    scopes: z.array(z.enum(allScopes)),
    maxTlpClearance: tlpSchema,
    tiers: z.array(z.enum(keyTiers)),
    defaultTier: z.enum(keyTiers),
    expiryRequired: z.boolean(),
    maxLifetimeDays: z.int().nullable(),
  })
  .meta({ id: "ApiKeyGrantOptions", description: "What the caller may give a new key: every other scope, clearance or tier is refused" });

/** A new key's tier when none is given: `standard`, or the creator's own tier when that is lower. */
export function defaultTierFor(principal: Principal): KeyTier {
  return principal.tier !== null && tierAtMost(principal.tier, "standard") ? principal.tier : "standard";
}

export function keyGrantOptions(principal: Principal, policy: OrganizationPolicy): KeyGrantOptions {
  return {
    scopes: allScopes.filter((scope) => principal.scopes.has(scope)),
    maxTlpClearance: Math.min(principal.tlpClearance, policy.maxKeyTlp),
    tiers: keyTiers.filter((tier) => policy.allowedTiers.includes(tier) && (principal.tier === null || tierAtMost(tier, principal.tier))),
    defaultTier: defaultTierFor(principal),
    expiryRequired: policy.requireKeyExpiry || policy.maxKeyLifetimeDays !== null,
    maxLifetimeDays: policy.maxKeyLifetimeDays,
  };
}
