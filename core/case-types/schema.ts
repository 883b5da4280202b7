import { z } from "zod";
import { boundedString, changeSchema, listResponseSchema, pageQueryShape, papSchema, resourceMetaShape, timestampSchema, tlpSchema, trimmedText } from "../schema/common.js";
import { customFieldKeySchema } from "../custom-fields/schema.js";
import { lifecycleKeySchema } from "../lifecycles/schema.js";

const keySchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,99}$/, "must be 1 to 100 lower-case letters, digits, _ or -, starting with a letter or digit");
const fieldKeysSchema = z.array(customFieldKeySchema).max(200).refine((k) => new Set(k).size === k.length, "lists a field twice").meta({ uniqueItems: true, description: "Keys of case custom fields that apply to cases of this type; empty: every case field" });
const lifecycleSchema = lifecycleKeySchema.meta({
  description: "The case lifecycle its cases follow: `default` or a named case lifecycle's key (GET /lifecycles/case/named); absent or null: the default one",
});
const severitySchema = z.int().min(1).max(4).meta({ description: "The severity a new case of this type gets when its body gives none" });

export const caseTypeCreateSchema = z
  .strictObject({
    key: keySchema,
    label: trimmedText(200),
    description: boundedString(2000).optional(),
    defaultTlp: tlpSchema.optional(),
    defaultPap: papSchema.optional(),
    defaultSeverity: severitySchema.optional(),
    customFields: fieldKeysSchema.default([]),
    lifecycle: lifecycleSchema.optional(),
  })

/** The key never changes. */
export const caseTypeUpdateSchema = changeSchema({
  label: trimmedText(200),
  description: boundedString(2000).nullable(),
  defaultTlp: tlpSchema.nullable(),
  defaultPap: papSchema.nullable(),
  defaultSeverity: severitySchema.nullable(),
  customFields: fieldKeysSchema,
  lifecycle: lifecycleSchema.nullable(),
  archived: z.boolean().meta({ description: "true archives the type (no new cases of it), false restores it" }),
}).meta({ id: "CaseTypeUpdate" });

export const caseTypeSchema = z
  .object({
    ...resourceMetaShape,
    key: z.string(),
    label: z.string(),
    description: z.string().nullable(),
    defaultTlp: z.int().nullable(),
    defaultPap: z.int().nullable(),
    defaultSeverity: z.int().nullable(),
    customFields: z.array(z.string()),
    lifecycle: z.string().nullable(),
    archivedAt: timestampSchema.nullable(),
  })
  .meta({ id: "CaseType" });

export const caseTypeListQuerySchema = z.strictObject({ ...pageQueryShape });
export const caseTypeListSchema = listResponseSchema(caseTypeSchema).meta({ id: "CaseTypeList" });
