import { z } from "zod";
import { caseTagSchema } from "../cases/schema.js";
import { anyOf, boundedString, changeSchema, idSchema, listResponseSchema, pageQueryShape, papSchema, queryInt, resourceMetaShape, timestampSchema, tlpSchema, trimmedText } from "../schema/common.js";
import { dataFormatConditions } from "./data-formats.js";
import { recordCustomFieldsSchema } from "../custom-fields/schema.js";
import { builtInDataTypes, dataTypePattern, maxDataLength } from "./data-types.js";

const dataTypeSchema = z
  .string()
  .regex(dataTypePattern, "must be lower-case letters, digits, _ or -, starting with a letter, at most 64 characters")
  .meta({
    description: `Built-in: ${builtInDataTypes.join(", ")}. Any other name of the same shape is accepted as the organization's own type (stored as sent, no format check).`,
    examples: ["ip", "domain", "hash"],
  });

const dataSchema = trimmedText(maxDataLength).meta({
  description:
    "The value. Trimmed; checked and normalised for ip (canonical IPv4 / RFC 5952 IPv6), domain and fqdn (lower-case A-labels, no trailing dot), hash (lower-case hex of MD5/SHA-1/SHA-256/SHA-512), mail (lower-case); url is checked (http, https, ftp) but kept as sent.",
});
const messageSchema = boundedString(4096);
const customFieldsSchema = recordCustomFieldsSchema("observable");

/** Create body. The parent comes from the path; `tlp` defaults to the parent's. */
export const observableCreateSchema = z
  .strictObject({
    dataType: dataTypeSchema,
    data: dataSchema,
    tlp: tlpSchema.optional().meta({ description: "Defaults to the parent case's or alert's TLP" }),
    pap: papSchema.default(2),
    ioc: z.boolean().default(false),
    sighted: z.boolean().default(false),
    tags: z.array(caseTagSchema).max(100).default([]),
    message: messageSchema.optional(),
    customFields: customFieldsSchema.default({}),
  })
  .meta({ id: "ObservableCreate", ...dataFormatConditions });

/** Only the fields to change; `message: null` clears it. `dataType` and `data` never change. */
export const observableUpdateSchema = changeSchema({
  tlp: tlpSchema,
  pap: papSchema,
  ioc: z.boolean(),
  sighted: z.boolean(),
  tags: z.array(caseTagSchema).max(100),
  message: messageSchema.nullable(),
  customFields: customFieldsSchema.meta({ description: "The observable's whole set of values: fields left out are cleared (fields above your TLP clearance keep theirs)" }),
}).meta({ id: "ObservableUpdate" });

export const observableSchema = z
  .object({
    ...resourceMetaShape,
    caseId: z.string().nullable().meta({ description: "The parent case; exactly one of caseId and alertId is set" }),
    alertId: z.string().nullable().meta({ description: "The parent alert; exactly one of caseId and alertId is set" }),
    dataType: z.string(),
    data: z.string(),
    tlp: z.int(),
    pap: z.int(),
    ioc: z.boolean(),
    sighted: z.boolean(),
    tags: z.array(caseTagSchema),
    message: z.string().nullable(),
    customFields: z.record(z.string(), z.unknown()).meta({ description: "Values of the organization's observable custom fields; those above your TLP clearance are left out" }),
    deletedAt: z.string().nullable().meta({ format: "date-time" }),
    deletedBy: z.string().nullable(),
  })
  .meta({ id: "Observable" });

export const observableCreatedSchema = observableSchema
  .extend({
    deduplicated: z.boolean().meta({
      description: "True when the parent already had this (dataType, data): the answer is that record, with ioc and sighted OR-ed and tags added",
    }),
  })
  .meta({ id: "ObservableCreated" });

const booleanParam = z.enum(["true", "false"]).transform((v) => v === "true");

/** The `data` filter repeats at most this often (see anyOf: long values, fewer of them). */
export const maxDataFilterValues = 4;

/** Filters shared by the nested lists and the organization-wide one. */
const filterShape = {
  ...pageQueryShape,
  dataType: anyOf(dataTypeSchema).optional(),
  // Values may be 4096 characters long: four of them fill most of the request head the host reads.
  data: anyOf(boundedString(maxDataLength, 1), maxDataFilterValues).optional().meta({
    description: `Exact value, compared after the same normalisation as on create (\`EVIL.com\` finds the domain \`evil.com\`); repeat for any of up to ${maxDataFilterValues}`,
  }),
  ioc: booleanParam.optional(),
  sighted: booleanParam.optional(),
  tag: anyOf(boundedString(100)).optional(),
  tlp: anyOf(queryInt(0, 4)).optional(),
  createdAfter: timestampSchema.optional(),
  createdBefore: timestampSchema.optional(),
};

/** `GET /cases/{caseId}/observables`, `GET /alerts/{alertId}/observables`. */
export const observableParentListQuerySchema = z.strictObject(filterShape);

/** `GET /observables`: across the organization. */
export const observableListQuerySchema = z.strictObject({
  ...filterShape,
  caseId: anyOf(idSchema("case")).optional(),
  alertId: anyOf(idSchema("alert")).optional(),
});

export const observableListSchema = listResponseSchema(observableSchema).meta({ id: "ObservableList" });

export type ObservableCreateInput = z.input<typeof observableCreateSchema>;
export type ObservableUpdateInput = z.input<typeof observableUpdateSchema>;
export type ObservableListQuery = z.input<typeof observableListQuerySchema>;
