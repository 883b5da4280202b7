import type { Scope } from "./scopes.js";
import type { UserRole } from "../users/types.js";
import type { KeyTier } from "../keys/types.js";
import { CaseKitError } from "../errors.js";
import { withinClearance } from "./clearance.js";

/** Where a request came from: recorded in audit entries, never used for decisions. */
export interface RequestOrigin {
  requestId?: string;
  ip?: string;
  userAgent?: string;
}

/**
 * The authenticated caller every service call takes. The core, not the host, decides access:
 * effective scopes are the key's scopes intersected with the owner's role, and the clearance is
 * the lower of the key's and the owner's.
 */
export interface Principal {
  organizationId: string;
  userId: string;
  /** Null when the caller was not authenticated by a casekit key. */
  keyId: string | null;
  /**
   * How the caller proved who it is: a casekit API key, a casekit account session (a person
   * signed in with a password), or the embedding host's own identity system.
   */
  authenticatedBy: "key" | "session" | "host";
  role: UserRole;
  /** The key's tier (rate limits only); null for sessions and host identities. */
  tier: KeyTier | null;
  scopes: ReadonlySet<Scope>;
  tlpClearance: number;
  origin?: RequestOrigin;
  /**
   * Set only on principals casekit builds for its own work (retention, rules acting on their
   * own): the audit events they write name a `system` or `automation` actor (core/audit/actor.ts).
   */
  actorType?: "system" | "automation";
}

/**
 * A copy of `principal` carrying `origin` (or its own, when none is given): one per request.
 * Member by member, since V8 adds a member to a spread's copy slowly.
 */
export function withOrigin(principal: Principal, origin: RequestOrigin | undefined): Principal {
  const copy: Principal = {
    organizationId: principal.organizationId,
    userId: principal.userId,
    keyId: principal.keyId,
    authenticatedBy: principal.authenticatedBy,
    role: principal.role,
    tier: principal.tier,
    scopes: principal.scopes,
    tlpClearance: principal.tlpClearance,
  };
  const from = origin ?? principal.origin;
  if (from !== undefined) copy.origin = from;
  if (principal.actorType !== undefined) copy.actorType = principal.actorType;
  return copy;
}

/** Fails to compile when Principal gains a member withOrigin does not copy. */
type CopiedByWithOrigin = "organizationId" | "userId" | "keyId" | "authenticatedBy" | "role" | "tier" | "scopes" | "tlpClearance" | "origin" | "actorType";
export const _withOriginCopiesAll: Exclude<keyof Principal, CopiedByWithOrigin> extends never ? true : never = true;

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope)) {
    throw new CaseKitError("missing_scope", `This operation needs the scope ${scope}`);
  }
}

/** Denies unless `tlp` is within the principal's clearance; a non-level on either side denies. */
export function requireClearance(principal: Principal, tlp: number): void {
  if (!withinClearance(tlp, principal.tlpClearance)) {
    throw new CaseKitError("tlp_restricted");
  }
}
