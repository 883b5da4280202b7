import type { Principal, RequestOrigin } from "./principal.js";
import type { Scope } from "./scopes.js";
import { scopesOfRole } from "./scopes.js";
import { principalClaimsSchema } from "./claims.js";
import { CaseKitError } from "../errors.js";
import type { StoredUser } from "../users/types.js";
import type { KeyTier } from "../keys/types.js";
import { parse } from "../validation.js";

export interface PrincipalClaims {
  authenticatedBy: Principal["authenticatedBy"];
  keyId?: string | null;
  tier?: KeyTier | null;
  /** What the credential asks for; the owner's role caps it. Omitted: everything the role allows. */
  scopes?: readonly Scope[];
  /** What the credential asks for (an integer 0–4); the owner's clearance caps it. Omitted: the owner's. */
  tlpClearance?: number;
  origin?: RequestOrigin;
}

/**
 * The one rule that turns a credential and its owner into a principal, whatever proved the
 * identity (key, session or the host): the claims must be well-formed (validation_failed
 * otherwise: a NaN clearance or an unknown tier never becomes a principal); the owner must be
 * active; effective scopes are the credential's scopes intersected with the owner's role;
 * clearance is the lower of the two.
 */
export function resolvePrincipal(owner: StoredUser, input: PrincipalClaims): Principal {
  const claims = parse(principalClaimsSchema, input);
  if (owner.status !== "active") throw new CaseKitError("owner_inactive");
  const allowed = scopesOfRole[owner.role];
  const scopes = claims.scopes ? claims.scopes.filter((s) => allowed.includes(s)) : allowed;
  return {
    organizationId: owner.organizationId,
    userId: owner.id,
    keyId: claims.keyId ?? null,
    authenticatedBy: claims.authenticatedBy,
    role: owner.role,
    tier: claims.tier ?? null,
    scopes: new Set(scopes),
    tlpClearance: Math.min(claims.tlpClearance ?? owner.tlpClearance, owner.tlpClearance),
    ...(claims.origin ? { origin: claims.origin } : {}),
  };
}
