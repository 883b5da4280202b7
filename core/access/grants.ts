import { CaseKitError } from "../errors.js";
import type { KeyTier } from "../keys/types.js";
import { keyTiers } from "../keys/types.js";
import type { UserRole } from "../users/types.js";
import { withinClearance } from "./clearance.js";
import type { Principal } from "./principal.js";
import type { Scope } from "./scopes.js";
import { scopesOfRole } from "./scopes.js";

/** What a holder (a user or a key) has, or would have after a change. */
export interface Rights {
  scopes: readonly Scope[];
  tlpClearance: number;
  /** Keys only: the rate-limit tier. */
  tier?: KeyTier;
}

/**
 * A user's rights are everything their role allows, up to their clearance: whoever knows their
 * password holds that much. Roles nest (admin ⊃ analyst ⊃ read_only), so this also orders them.
 */
export function rightsOfUser(user: { role: UserRole; tlpClearance: number }): Rights {
  return { scopes: scopesOfRole[user.role], tlpClearance: user.tlpClearance };
}

/**
 * Recorded rights (a request's, a grant's) capped by their key's rights as they are now: only
 * scopes the key still has, a clearance no higher than the key's; never widened. No key (a
 * session's, a host's): the recorded rights as they are. The owner caps them next
 * (resolvePrincipal).
 */
export function cappedByKey(recorded: { scopes: Iterable<Scope>; tlpClearance: number }, key: { scopes: readonly Scope[]; tlpClearance: number } | null): { scopes: Scope[]; tlpClearance: number } {
  if (key === null) return { scopes: [...recorded.scopes], tlpClearance: recorded.tlpClearance };
  const keyScopes = new Set<Scope>(key.scopes);
  return { scopes: [...recorded.scopes].filter((scope) => keyScopes.has(scope)), tlpClearance: Math.min(recorded.tlpClearance, key.tlpClearance) };
}

/** Tiers rise in the order of `keyTiers`: basic < standard < professional < enterprise < unlimited. */
export function tierAtMost(tier: KeyTier, ceiling: KeyTier): boolean {
  const rank = keyTiers.indexOf(tier);
  const ceilingRank = keyTiers.indexOf(ceiling);
  return rank >= 0 && ceilingRank >= 0 && rank <= ceilingRank;
}

/**
 * Nobody grants what they do not hold: the one rule behind every grant (a new key, a new user, a
 * role or clearance given) and every change to a holder (nobody changes a user or key with more
 * rights than their own). The caller must hold every scope of `rights`, a clearance at least as
 * high, and, when the caller has a tier (keys, host identities that give one), a tier at least as
 * high; a caller without a tier (a session, a tier-less host identity) is capped by the
 * organization's policy alone. `doing` completes "You cannot …" in the refusal.
 * Throws 403 missing_scope, tlp_restricted or tier_restricted, checked in that order.
 */
export function requireHolds(principal: Principal, rights: Rights, doing: string): void {
  const beyond = rights.scopes.filter((scope) => !principal.scopes.has(scope));
  if (beyond.length > 0) {
    throw new CaseKitError("missing_scope", `You cannot ${doing} scopes you do not hold: ${beyond.join(", ")}`);
  }
  if (!withinClearance(rights.tlpClearance, principal.tlpClearance)) {
    throw new CaseKitError("tlp_restricted", `You cannot ${doing} a TLP clearance above your own`);
  }
  if (rights.tier !== undefined && principal.tier !== null && !tierAtMost(rights.tier, principal.tier)) {
    throw new CaseKitError("tier_restricted", `You cannot ${doing} a tier above your own (${principal.tier})`);
  }
}
