import { z } from "zod";
import { keyTiers } from "../keys/types.js";
import { idSchema, tlpSchema } from "../schema/common.js";
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

/** `kit.principalFor`'s argument: a user of an organization, vouched for by the host. */
export const hostIdentitySchema = z.strictObject({
  organizationId: idSchema("org"),
  userId: idSchema("user"),
  ...claimShape,
});
