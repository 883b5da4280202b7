import { z } from "zod";
import { allScopes } from "../access/scopes.js";
import { anyOf, boundedString, listResponseSchema, pageQueryShape, resourceMetaShape, timestampSchema, tlpSchema, trimmedText } from "../schema/common.js";
import { keyStatuses, keyTiers } from "./types.js";

export const apiKeyCreateSchema = z
  .strictObject({
    name: trimmedText(200),
    description: boundedString(1000).optional(),
    tier: z
      .enum(keyTiers)
      .optional()
      .meta({ description: "At most the creator's own tier, and one the organization's policy allows. Defaults to standard, or the creator's tier when lower" }),
    scopes: z
      .array(z.enum(allScopes))
      .min(1)
      .max(allScopes.length)
      .refine((s) => new Set(s).size === s.length, "lists a scope twice")
      .meta({ uniqueItems: true }),
    tlpClearance: tlpSchema.optional().meta({ description: "Defaults to the creator's clearance (capped by the organization's policy)" }),
    expiresAt: timestampSchema.optional(),
  })
  .meta({ id: "ApiKeyCreate", examples: [{ name: "SIEM ingestion", scopes: ["alerts:write"], tlpClearance: 2, expiresAt: "2027-01-01T00:00:00Z" }] });

export const apiKeySchema = z
  .object({
    ...resourceMetaShape,
    userId: z.string().meta({ description: "The owner: the user whose status and role bound the key" }),
    name: z.string(),
    description: z.string().nullable(),
    tier: z.enum(keyTiers),
    scopes: z.array(z.enum(allScopes)),
    tlpClearance: z.int(),
    status: z.enum(keyStatuses),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    start: z.string().meta({ description: "The first characters of the secret, to tell keys apart" }),
  })
  .meta({ id: "ApiKey" });

export const apiKeyCreatedSchema = apiKeySchema
  .extend({ key: z.string().meta({ description: "The secret. Shown this once: only a hash is stored." }) })
  .meta({ id: "ApiKeyCreated" });

export const apiKeyListQuerySchema = z.strictObject({
  ...pageQueryShape,
  status: anyOf(z.enum(keyStatuses)).optional(),
  tier: anyOf(z.enum(keyTiers)).optional(),
  userId: boundedString(64).optional(),
});

export const apiKeyListSchema = listResponseSchema(apiKeySchema).meta({ id: "ApiKeyList" });
