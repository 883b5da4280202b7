import { z } from "zod";
import { keyTiers } from "../keys/types.js";
import { rateLimitOverridesSchema } from "../limits/schema.js";
import { changeSchema, tlpSchema } from "../schema/common.js";

/**
 * Per-organization settings that narrow access further than scopes and TLP do. They only ever
 * take rights away: no policy value grants what a key's scopes, its owner's role or TLP deny.
 */
export const organizationPolicySchema = z
  .strictObject({
    maxKeyTlp: tlpSchema.meta({ description: "Highest TLP clearance any new key of the organization may be given" }),
    requireKeyExpiry: z.boolean().meta({ description: "New keys must carry expiresAt" }),
    maxKeyLifetimeDays: z.int().min(1).max(3650).nullable().meta({ description: "Longest lifetime of a new key, in days; null for no limit" }),
    allowedTiers: z.array(z.enum(keyTiers)).min(1).max(keyTiers.length).meta({ description: "Tiers new keys may have (default: every tier but unlimited); a key's tier is also capped by its creator's" }),
    rateLimits: rateLimitOverridesSchema.meta({
      description: "Lower the deployment's rate limits for this organization's keys, per tier (never raises them; never below the floors: 10 a minute, 100 an hour, a burst of 5)",
    }),
    allowCaseSharing: z
      .boolean()
      .meta({ description: "Cases may be shared with, and received from, other organizations (both sides must allow it)" }),
    auditRetentionDays: z
      .int()
      .min(1)
      .max(36_500)
      .nullable()
      .meta({
        description:
          "Audit events older than this many days are pruned behind a signed checkpoint (README \"Audit events\"); null: the deployment's CASEKIT_AUDIT_RETENTION_DAYS",
      }),
  })
  .meta({ id: "OrganizationPolicy" });

export type OrganizationPolicy = z.infer<typeof organizationPolicySchema>;

export const defaultOrganizationPolicy: OrganizationPolicy = {
  maxKeyTlp: 4,
  requireKeyExpiry: false,
  maxKeyLifetimeDays: null,
  // No `unlimited` keys through the API by default: an admin who wants them allows them here.
  // (`casekit init`'s first admin key is unlimited: set-up, not the API, creates it.)
  allowedTiers: keyTiers.filter((tier) => tier !== "unlimited"),
  rateLimits: {},
  allowCaseSharing: false,
  auditRetentionDays: null,
};

export const organizationPolicyUpdateSchema = changeSchema(organizationPolicySchema.shape, "give at least one setting to change").meta({
  id: "OrganizationPolicyUpdate",
});
