import { z } from "zod";
import { freeFormObjectSchema } from "../schema/free-form.js";
import { boundedString, changeSchema, finiteNumber, listResponseSchema, pageQueryShape, resourceMetaShape, timestampSchema, tlpSchema, trimmedText } from "../schema/common.js";
import type { CustomFieldScope } from "./types.js";
import { customFieldScopes, customFieldTypes } from "./types.js";

/** Keys and option ids: lower-case snake case, so they read the same in JSON, query strings and SQL. */
export const customFieldKeySchema = z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, "must be 1 to 63 lower-case letters, digits or _, starting with a letter");

export const customFieldOptionSchema = z
  .strictObject({
    id: customFieldKeySchema.meta({ description: "Stable: values store it; never renamed or removed" }),
    label: trimmedText(200),
    deprecated: z.boolean().default(false),
  })
  .meta({ id: "CustomFieldOption" });

export const customFieldBoundsSchema = z
  .strictObject({
    min: finiteNumber().optional(),
    max: finiteNumber().optional(),
    minLength: z.int().min(0).max(100_000).optional(),
    maxLength: z.int().min(1).max(100_000).optional(),
    pattern: boundedString(500, 1).optional(),
  })
  .meta({ id: "CustomFieldBounds", description: "min/max: integer and number values (inclusive), multi_enum choice counts; minLength/maxLength: string, text, url and email; pattern: string only" });

export const customFieldRequirementSchema = z
  .strictObject({
    onCreate: z.boolean().default(false),
    onClose: z.boolean().default(false),
    onEnter: z
      .array(customFieldKeySchema)
      .max(50)
      .refine((keys) => new Set(keys).size === keys.length, "lists a status twice")
      .default([])
      .meta({ uniqueItems: true, description: "Status keys of the record's lifecycle: the value must be set before the record enters any of them" }),
  })
  .meta({
    id: "CustomFieldRequirement",
    description:
      "onClose: the value must be set before the record moves into a final status; onEnter: before it enters one of the named statuses. Both are gates of the lifecycle's transitions: GET …/transitions lists them as field:customFields.<key>",
  });

const scopesSchema = z.array(z.enum(customFieldScopes)).min(1).max(customFieldScopes.length).refine((s) => new Set(s).size === s.length, "lists a scope twice").meta({ uniqueItems: true });
// Option ids are unique: a rule JSON Schema cannot state for objects, checked with the definition (definition-rules.ts).
const optionsSchema = z.array(customFieldOptionSchema).max(500);
// A default is a value of the field: a scalar, or option ids (multi_enum).
const defaultSchema = z.union([boundedString(100_000), finiteNumber(), z.boolean(), z.array(customFieldKeySchema).max(500)]).meta({ description: "Applied at create when the body omits the field; must be a valid value of the field" });

export const customFieldCreateSchema = z
  .strictObject({
    key: customFieldKeySchema,
    label: trimmedText(200),
    description: boundedString(2000).optional(),
    scopes: scopesSchema,
    type: z.enum(customFieldTypes),
    options: optionsSchema.default([]),
    bounds: customFieldBoundsSchema.default({}),
    required: customFieldRequirementSchema.default({ onCreate: false, onClose: false, onEnter: [] }),
    defaultValue: defaultSchema.optional(),
    tlpFloor: tlpSchema.optional(),
    filterable: z.boolean().default(false),
  })
  .meta({
    id: "CustomFieldCreate",
    examples: [{ key: "impact", label: "Business impact", scopes: ["case"], type: "enum", options: [{ id: "low", label: "Low" }, { id: "high", label: "High" }], filterable: true }],
  });

/** The key and type never change; options may be added, relabelled or deprecated, never removed. */
export const customFieldUpdateSchema = changeSchema({
  label: trimmedText(200),
  description: boundedString(2000).nullable(),
  scopes: scopesSchema,
  options: optionsSchema,
  bounds: customFieldBoundsSchema,
  required: customFieldRequirementSchema,
  defaultValue: defaultSchema.nullable(),
  tlpFloor: tlpSchema.nullable(),
  filterable: z.boolean(),
  archived: z.boolean().meta({ description: "true archives the field (no new values), false restores it" }),
}).meta({ id: "CustomFieldUpdate" });

export const customFieldSchema = z
  .object({
    ...resourceMetaShape,
    key: z.string(),
    label: z.string(),
    description: z.string().nullable(),
    scopes: z.array(z.enum(customFieldScopes)),
    type: z.enum(customFieldTypes),
    options: z.array(z.object({ id: z.string(), label: z.string(), deprecated: z.boolean() })),
    bounds: z.object({ min: z.number().optional(), max: z.number().optional(), minLength: z.int().optional(), maxLength: z.int().optional(), pattern: z.string().optional() }),
    required: z.object({ onCreate: z.boolean(), onClose: z.boolean(), onEnter: z.array(z.string()).optional().meta({ description: "absent: none" }) }),
    defaultValue: z.unknown().meta({ description: "null for none" }),
    tlpFloor: z.int().nullable(),
    filterable: z.boolean(),
    archivedAt: timestampSchema.nullable(),
  })
  .meta({ id: "CustomField" });

export const customFieldListQuerySchema = z.strictObject({
  ...pageQueryShape,
  scope: z.enum(customFieldScopes).optional(),
});

export const customFieldListSchema = listResponseSchema(customFieldSchema).meta({ id: "CustomFieldList" });

export const customFieldSchemaQuerySchema = z.strictObject({ scope: z.enum(customFieldScopes) });

/** The JSON Schema document `GET /custom-fields/schema` answers: described generically. */
export const customFieldJsonSchemaSchema = z.record(z.string(), z.unknown()).meta({ id: "CustomFieldJsonSchema", description: "A JSON Schema (draft 2020-12) of the organization's `customFields` for the scope" });

/** A record's `customFields` in a body: checked against the scope's definitions by the service (free-form while there are none). */
export const recordCustomFieldsSchema = (scope: CustomFieldScope) =>
  freeFormObjectSchema(`Values of the organization's ${scope} custom fields (GET /custom-fields/schema?scope=${scope} describes them); free-form while it defines none for ${scope}s`);

/** A bulk selectAll's `filters.customFields`: the list's `cf.<key>=<value>` as JSON. */
export const customFieldFilterValuesSchema = (noun: string) =>
  z
    .record(customFieldKeySchema, z.union([boundedString(200, 1), finiteNumber(), z.boolean()]))
    .optional()
    .meta({ description: `Custom field values every ${noun} must hold, as the list's \`cf.<key>=<value>\` (at most three, filterable fields only)` });
