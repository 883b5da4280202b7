import { z } from "zod";
import { customFieldFilterValuesSchema } from "../custom-fields/schema.js";
import { bulkRequestSchema, bulkResultSchema } from "../bulk/schema.js";
import { caseSchema, caseTagSchema, customFieldsSchema, recordListFilterShape } from "../cases/schema.js";
import { statusKeySchema } from "../lifecycles/schema.js";
import { observableCreateSchema, observableSchema } from "../observables/schema.js";
import { anyOf, boundedString, changeSchema, idSchema, jsonInt, listResponseSchema, pageQueryShape, papSchema, queryInt, resourceMetaShape, timestampSchema, tlpSchema, trimmedText } from "../schema/common.js";
import type { IntReader } from "../schema/common.js";

/** Most observables one create body may carry. */
export const maxInlineObservables = 500;
/** Longest `q` (title text filter) accepted. */
export const maxTitleQueryLength = 200;

const text = (max: number) => boundedString(max);
const titleSchema = boundedString(500, 1);
const severitySchema = z.int().min(1).max(4);
const sourceSchema = trimmedText(200).meta({ description: "What reported the alert (a SIEM, an EDR …)" });
const sourceRefSchema = trimmedText(500).meta({ description: "The source's own id of the alert: with `source`, the key of idempotent ingestion" });

/**
 * Create body. With a `sourceRef` that a live alert of the organization already has (same
 * source), the body updates that alert instead (idempotent ingestion, core/alerts/ingest.ts).
 * `tlp` and `pap` default to 2 on a new alert; on a repeated one they only ever raise the marking.
 */
export const alertCreateSchema = z
  .strictObject({
    title: titleSchema,
    severity: severitySchema,
    description: text(100_000).optional(),
    tlp: tlpSchema.optional().meta({ description: "Default 2 (AMBER) for a new alert; a repeated report raises the marking, never lowers it" }),
    pap: papSchema.optional().meta({ description: "Default 2 for a new alert; a repeated report raises it, never lowers it" }),
    typeValue: text(100).optional(),
    source: sourceSchema,
    sourceRef: sourceRefSchema.optional(),
    assigneeId: idSchema("user").optional(),
    tags: z.array(caseTagSchema).max(100).default([]),
    customFields: customFieldsSchema.default({}),
    eventDate: timestampSchema.optional().meta({ description: "When the reported event happened (the source's time)" }),
    observables: z
      .array(observableCreateSchema)
      .max(maxInlineObservables)
      .default([])
      .meta({ description: `Observables of the alert (at most ${maxInlineObservables}), saved with it and deduplicated per (dataType, data); \`tlp\` defaults to the alert's` }),
  })
  .meta({
    id: "AlertCreate",
    examples: [{ title: "Impossible travel for j.doe", severity: 3, source: "siem", sourceRef: "SIEM-2026-0042", observables: [{ dataType: "ip", data: "198.51.100.7", ioc: true }] }],
  });

/** Only the fields to change; `null` clears an optional field. source and sourceRef never change. */
export const alertUpdateSchema = changeSchema({
    title: titleSchema,
    severity: severitySchema,
    description: text(100_000).nullable(),
    tlp: tlpSchema,
    pap: papSchema,
    typeValue: text(100).nullable(),
    statusValue: statusKeySchema.meta({ description: "A status of the organization's alert lifecycle (built-in: new, acknowledged or closed); `imported` is set only by promote and merge" }),
    assigneeId: idSchema("user").nullable(),
    tags: z.array(caseTagSchema).max(100),
    customFields: customFieldsSchema,
    eventDate: timestampSchema.nullable(),
  }).meta({ id: "AlertUpdate" });

export const alertSchema = z
  .object({
    ...resourceMetaShape,
    title: z.string(),
    description: z.string().nullable(),
    severity: z.int(),
    tlp: z.int(),
    pap: z.int(),
    typeValue: z.string().nullable(),
    source: z.string(),
    sourceRef: z.string().nullable(),
    statusValue: z.string().meta({ description: "A status key of the organization's alert lifecycle" }),
    assigneeId: z.string().nullable(),
    tags: z.array(caseTagSchema),
    customFields: z.record(z.string(), z.unknown()),
    eventDate: z.string().nullable().meta({ format: "date-time" }),
    occurrences: z.int().meta({ description: "How many reports of (source, sourceRef) this alert stands for" }),
    lastSeenAt: z.string().meta({ format: "date-time", description: "When the source last reported it" }),
    caseId: z.string().nullable().meta({ description: "The case it was promoted to or merged into" }),
    deletedAt: z.string().nullable().meta({ format: "date-time" }),
    deletedBy: z.string().nullable(),
  })
  .meta({ id: "Alert" });

export const alertCreatedSchema = alertSchema
  .extend({
    deduplicated: z.boolean().meta({ description: "True when a live alert already had this (source, sourceRef) and was updated instead of a new alert being created" }),
    observables: z.array(observableSchema).meta({ description: "The alert's observables this request created or merged into" }),
  })
  .meta({ id: "AlertCreated" });

const booleanParam = z.enum(["true", "false"]).transform((v) => v === "true");

/** List filters, named as the case list's; repeated parameters mean "any of". */
const alertFilterShape = (int: IntReader) => ({
  ...recordListFilterShape(int),
  q: boundedString(maxTitleQueryLength, 1).optional().meta({ description: `Text the title contains (case-insensitive for ASCII letters, matched literally; at most ${maxTitleQueryLength} characters)` }),
});

export const alertListQuerySchema = z.strictObject({
  ...pageQueryShape,
  ...alertFilterShape(queryInt),
  includeDeleted: booleanParam.optional().meta({ description: "Soft-deleted alerts too; needs the scope org:admin" }),
});

/** The list filters a bulk selectAll takes (JSON): the list's, without paging and includeDeleted. */
export const alertFiltersSchema = z.strictObject({
  ...alertFilterShape(jsonInt),
  customFields: customFieldFilterValuesSchema("alert"),
});

export const alertListSchema = listResponseSchema(alertSchema).meta({ id: "AlertList" });

/** `POST /bulk/alerts/assign`: the alerts by `ids` or `options.selectAll` with the list's filters. */
export const alertBulkAssignSchema = bulkRequestSchema(alertFiltersSchema, {
  assigneeId: idSchema("user").meta({ description: "The user to assign: an active user of your organization" }),
}).meta({ id: "AlertBulkAssign" });

export const alertBulkAssignedSchema = bulkResultSchema("assigned").meta({ id: "AlertBulkAssigned" });

/** Promote: the new case takes the alert's fields; these override them. */
export const alertPromoteSchema = z
  .strictObject({
    title: titleSchema,
    description: text(100_000),
    severity: severitySchema,
    statusValue: statusKeySchema.meta({ description: "The new case's status: of the new or in_progress category of the case lifecycle" }),
    assigneeId: idSchema("user"),
  })
  .partial()
  .meta({ id: "AlertPromote" });

export const alertMergeSchema = z.strictObject({ caseId: idSchema("case") }).meta({ id: "AlertMerge" });

const copyResultSchema = z
  .object({
    created: z.array(observableSchema).meta({ description: "New observables of the case" }),
    merged: z.array(observableSchema).meta({ description: "Observables the case had, with the alert's flags and tags merged in" }),
    unchanged: z.array(observableSchema).meta({ description: "Observables the case had, which the alert added nothing to" }),
    skipped: z.array(z.object({ id: z.string(), code: z.literal("tlp_restricted") })).meta({
      description: "Alert observables not copied: the case's record of the value is above the caller's clearance",
    }),
  })
  .meta({ id: "ObservableCopyResult" });

export const alertImportResultSchema = z
  .object({ case: caseSchema, alert: alertSchema, observables: copyResultSchema })
  .meta({ id: "AlertImportResult" });

/**
 * `GET /metrics/alerts/source`. A range whose `to` is not after `from` is empty, as the lists'
 * createdAfter/createdBefore are: it counts nothing (JSON Schema cannot compare two members, so
 * the document could not say a refusal).
 */
export const alertSourceMetricQuerySchema = z.strictObject({
  from: timestampSchema.optional().meta({ description: "createdAt at or after this instant" }),
  to: timestampSchema.optional().meta({ description: "createdAt before this instant; not after `from`, the range is empty" }),
  statusValue: anyOf(statusKeySchema).optional(),
});

export const alertSourceMetricSchema = z
  .object({ data: z.array(z.object({ source: z.string(), count: z.int() })) })
  .meta({ id: "AlertsBySource" });

export type AlertCreateInput = z.input<typeof alertCreateSchema>;
export type AlertUpdateInput = z.input<typeof alertUpdateSchema>;
export type AlertListQuery = z.input<typeof alertListQuerySchema>;
export type AlertFilters = z.output<typeof alertFiltersSchema>;
export type AlertBulkAssignInput = z.input<typeof alertBulkAssignSchema>;
