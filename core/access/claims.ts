import { z } from "zod";
import { keyTiers } from "../keys/types.js";
import { idSchema, tlpSchema } from "../schema/common.js";
import { isWellFormedText } from "../schema/well-formed.js";
import { parse } from "../validation.js";
import type { RequestOrigin } from "./principal.js";
import { allScopes } from "./scopes.js";

/**
 * What a credential or an embedding host may claim about a caller, checked with the same schema
 * pieces the HTTP API validates bodies with (TLP 0–4 integers, known scopes and tiers, prefixed
 * ids), so a NaN, an unknown tier or a made-up scope is `validation_failed`, never a principal.
 */
const claimShape = {
  scopes: z.array(z.enum(allScopes)).max(100).optional(),
  tlpClearance: tlpSchema.optional(),
  tier: z.enum(keyTiers).nullable().optional(),
  origin: z
    .strictObject({ requestId: z.string().optional(), ip: z.string().optional(), userAgent: z.string().optional() })
    .optional(),
};

export const principalClaimsSchema = z.strictObject({
  authenticatedBy: z.enum(["key", "session", "host"]),
  keyId: z.string().min(1).nullable().optional(),
  ...claimShape,
});

/** A request's origin alone, checked as inside the claims (paths `origin.…`): for a principal built once and reused per request. */
export const originClaimSchema = z.strictObject({ origin: claimShape.origin });

const originMembers: ReadonlySet<string> = new Set(Object.keys(claimShape.origin.unwrap().shape));

/**
 * `origin` checked by originClaimSchema, as `parse(originClaimSchema, { origin }).origin`: the
 * same members, the same refusals with the same paths. Every keyed request's origin comes here,
 * and hosts send a plain object of well-formed strings, which is copied without the schema's walk
 * (with the remembered key check, 10.2 -> 8.7 µs per kit.authenticateKey). Anything else (another
 * member, a value that is not a string, text the input rules refuse, an object of another kind)
 * goes through the schema, which says what is wrong.
 */
export function checkedOrigin(origin: RequestOrigin): RequestOrigin {
  if (typeof origin !== "object" || origin === null || Object.getPrototypeOf(origin) !== Object.prototype) return parse(originClaimSchema, { origin }).origin!;
  const copy: RequestOrigin = {};
  for (const member in origin) {
    const value: unknown = origin[member as keyof RequestOrigin];
    if (value === undefined && originMembers.has(member)) continue;
    if (!originMembers.has(member) || typeof value !== "string" || !isWellFormedText(value)) return parse(originClaimSchema, { origin }).origin!;
    copy[member as keyof RequestOrigin] = value;
  }
  return copy;
}

/** `kit.principalFor`'s argument: a user of an organization, vouched for by the host. */
export const hostIdentitySchema = z.strictObject({
  organizationId: idSchema("org"),
  userId: idSchema("user"),
  ...claimShape,
});
