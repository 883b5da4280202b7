import { z } from "zod";
import { anyOf, boundedString, changeSchema, idSchema, listResponseSchema, pageQueryShape, papSchema, queryInt, resourceMetaShape, timestampSchema, tlpSchema, trimmedText } from "../schema/common.js";
import type { IntReader } from "../schema/common.js";
import { freeFormObjectSchema } from "../schema/free-form.js";
import { statusKeySchema } from "../lifecycles/schema.js";

/** A tag is a name with an optional colour, so UIs can show it as a chip. */
export const caseTagSchema = z
  .strictObject({
    name: trimmedText(100),
    color: z.string().regex(/^#[0-9a-fA-F]{6}$/, "must be a #rrggbb colour").optional(),
  })
  .meta({ id: "CaseTag" });

/** A team the case is assigned to. */
export const caseTeamSchema = z.strictObject({ id: idSchema("team") }).meta({ id: "CaseTeamRef" });

const optionalText = (max: number) => boundedString(max);
export const customFieldsSchema = freeFormObjectSchema("Free-form values");

/** Exactly the create body of spec section 2.1, unknown fields rejected. */
export const caseCreateSchema = z
  .strictObject({
    title: boundedString(500, 1),
    severity: z
      .int()
      .min(1)
      .max(4)
      .optional()
      .meta({ description: "1 (low) to 4 (critical). Required unless `typeValue` names a case type with a `defaultSeverity`, which then applies" }),
    description: optionalText(100_000).optional(),
    tlp: tlpSchema.default(2),
    pap: papSchema.default(2),
    statusValue: statusKeySchema.optional().meta({ description: "A status of the new or in_progress category of the organization's case lifecycle (GET /lifecycles/case); by default its first status of the new category (built-in: new)" }),
    typeValue: optionalText(100).optional(),
    assigneeId: idSchema("user").optional(),
    clientId: optionalText(200).optional(),
    source: optionalText(200).optional(),
    sourceRef: optionalText(500).optional(),
    tags: z.array(caseTagSchema).max(100).default([]),
    teams: z.array(caseTeamSchema).max(50).default([]),
    organizations: z.array(idSchema("org")).max(50).default([]),
    customFields: customFieldsSchema.default({}),
  })
  .meta({
    id: "CaseCreate",
    examples: [{ title: "Phishing wave against finance", severity: 3, tlp: 2, tags: [{ name: "phishing", color: "#d73a49" }], customFields: { reporter: "ana@acme.example" } }],
  });

/** Only the fields to change; `null` clears an optional field. */
export const caseUpdateSchema = changeSchema({
    title: boundedString(500, 1),
    severity: z.int().min(1).max(4),
    description: optionalText(100_000).nullable(),
    tlp: tlpSchema,
    pap: papSchema,
    statusValue: statusKeySchema.meta({ description: "A status of the organization's case lifecycle; the move must be one of its transitions (GET /cases/{id}/transitions)" }),
    typeValue: optionalText(100).nullable(),
    assigneeId: idSchema("user").nullable(),
    clientId: optionalText(200).nullable(),
    source: optionalText(200).nullable(),
    sourceRef: optionalText(500).nullable(),
    tags: z.array(caseTagSchema).max(100),
    teams: z.array(caseTeamSchema).max(50),
    organizations: z.array(idSchema("org")).max(50),
    customFields: customFieldsSchema,
  }).meta({ id: "CaseUpdate" });

export const caseSchema = z
  .object({
    ...resourceMetaShape,
    number: z.int().meta({ description: "Per-organization sequence number, for people" }),
    title: z.string(),
    severity: z.int(),
    description: z.string().nullable(),
    tlp: z.int(),
    pap: z.int(),
    statusValue: z.string().meta({ description: "A status key of the organization's case lifecycle" }),
    typeValue: z.string().nullable(),
    assigneeId: z.string().nullable(),
    clientId: z.string().nullable(),
    source: z.string().nullable(),
    sourceRef: z.string().nullable(),
    tags: z.array(caseTagSchema),
    teams: z.array(caseTeamSchema),
    organizations: z.array(z.string()),
    customFields: z.record(z.string(), z.unknown()),
    closedAt: z.string().nullable().meta({ format: "date-time" }),
  })
  .meta({ id: "Case" });

/**
 * The list filters cases and alerts share (alerts' lists add their own), named after the fields,
 * with the record's own statuses; repeated parameters mean "any of".
 */
export function recordListFilterShape(int: IntReader = queryInt) {
  return {
    statusValue: anyOf(statusKeySchema).optional(),
    severity: anyOf(int(1, 4)).optional(),
    tlp: anyOf(int(0, 4)).optional(),
    assigneeId: anyOf(boundedString(64)).optional(),
    source: anyOf(boundedString(200)).optional(),
    typeValue: anyOf(boundedString(100)).optional(),
    tag: anyOf(boundedString(100)).optional(),
    createdAfter: timestampSchema.optional(),
    createdBefore: timestampSchema.optional(),
  };
}

export const caseListQuerySchema = z.strictObject({ ...pageQueryShape, ...recordListFilterShape() });

export const caseListSchema = listResponseSchema(caseSchema).meta({ id: "CaseList" });

export type CaseCreateInput = z.input<typeof caseCreateSchema>;
export type CaseUpdateInput = z.input<typeof caseUpdateSchema>;
export type CaseListQuery = z.input<typeof caseListQuerySchema>;
