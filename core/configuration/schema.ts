import { z } from "zod";
import { caseTypeCreateSchema } from "../case-types/schema.js";
import { customFieldCreateSchema } from "../custom-fields/schema.js";
import { lifecycleKeySchema, lifecyclePublishSchema, lifecycleStatusSchema, lifecycleTransitionSchema } from "../lifecycles/schema.js";
import { defaultLifecycleKey } from "../lifecycles/types.js";

const archivedSchema = z.boolean().default(false).meta({ description: "true: archived (no new records take it)" });

const caseTypeEntrySchema = caseTypeCreateSchema.extend({ archived: archivedSchema });
const customFieldEntrySchema = customFieldCreateSchema.extend({ archived: archivedSchema });

const example = {
  version: 1,
  lifecycles: {
    case: { statuses: [{ key: "open", label: "Open", category: "new", final: false, color: null }, { key: "closed", label: "Closed", category: "closed", final: true, color: null }], transitions: [{ from: ["open"], to: "closed" }] },
    alert: {
      statuses: [{ key: "new", label: "New", category: "new", final: false, color: null }, { key: "imported", label: "Imported", category: "closed", final: true, color: null }],
      transitions: [{ from: ["new"], to: "imported" }],
    },
    task: { statuses: [{ key: "waiting", label: "Waiting", category: "new", final: false, color: null }, { key: "done", label: "Done", category: "closed", final: true, color: null }], transitions: [{ from: ["waiting"], to: "done" }] },
  },
  caseLifecycles: [
    {
      key: "fast_track",
      statuses: [{ key: "open", label: "Open", category: "new", final: false, color: null }, { key: "done", label: "Done", category: "closed", final: true, color: null }],
      transitions: [{ from: ["open"], to: "done" }],
    },
  ],
  caseTypes: [{ key: "phishing", label: "Phishing", defaultSeverity: 2, customFields: ["impact"], lifecycle: "fast_track", archived: false }],
  customFields: [{ key: "impact", label: "Impact", scopes: ["case"], type: "enum", options: [{ id: "low", label: "Low", deprecated: false }], bounds: {}, required: { onCreate: false, onClose: false, onEnter: [] }, filterable: true, archived: false }],
};

const namedKeySchema = lifecycleKeySchema.refine((key) => key !== defaultLifecycleKey, "is the default case lifecycle's key: it is lifecycles.case");
const namedLifecycleEntrySchema = lifecyclePublishSchema.extend({ key: namedKeySchema }).meta({ id: "NamedCaseLifecycleEntry" });

/** What PUT /configuration takes: a lifecycle may carry a `mapping` for statuses it drops. */
export const configurationDocumentSchema = z
  .strictObject({
    version: z.literal(1).meta({ description: "The document format; 1 today" }),
    lifecycles: z.strictObject({ case: lifecyclePublishSchema, alert: lifecyclePublishSchema, task: lifecyclePublishSchema }),
    caseLifecycles: z
      .array(namedLifecycleEntrySchema)
      .max(50)
      .default([])
      .meta({ description: "Named case lifecycles (what case types' `lifecycle` names), by key; one missing from the document is kept" }),
    caseTypes: z.array(caseTypeEntrySchema).max(500),
    customFields: z.array(customFieldEntrySchema).max(500),
  })
  .meta({ id: "ConfigurationDocument", description: "An organization's lifecycles, case types and custom fields; keys are the identities, no ids or timestamps", examples: [example] });

const exportedLifecycleSchema = z.object({ statuses: z.array(lifecycleStatusSchema), transitions: z.array(lifecycleTransitionSchema) });

/** What GET /configuration answers: the document without mappings (they belong to one publication). */
export const configurationSchema = z
  .object({
    version: z.literal(1),
    lifecycles: z.object({ case: exportedLifecycleSchema, alert: exportedLifecycleSchema, task: exportedLifecycleSchema }),
    caseLifecycles: z.array(exportedLifecycleSchema.extend({ key: z.string() })).meta({ description: "The named case lifecycles in force, sorted by key" }),
    caseTypes: z.array(caseTypeEntrySchema),
    customFields: z.array(customFieldEntrySchema),
  })
  .meta({ id: "Configuration", description: "An organization's lifecycles, case types and custom fields, sorted by key", examples: [example] });

export type Configuration = z.output<typeof configurationSchema>;
export type ConfigurationDocument = z.output<typeof configurationDocumentSchema>;

const sectionChangesSchema = z.object({ created: z.array(z.string()), updated: z.array(z.string()), unchanged: z.array(z.string()) });
const lifecycleChangeSchema = z.enum(["published", "unchanged"]);

export const configurationChangesSchema = z
  .object({
    lifecycles: z.object({ case: lifecycleChangeSchema, alert: lifecycleChangeSchema, task: lifecycleChangeSchema }),
    caseLifecycles: z.object({ published: z.array(z.string()), unchanged: z.array(z.string()) }).meta({ description: "Named case lifecycle keys per outcome" }),
    caseTypes: sectionChangesSchema.meta({ description: "Keys per outcome" }),
    customFields: sectionChangesSchema.meta({ description: "Keys per outcome" }),
  })
  .meta({ id: "ConfigurationChanges", description: "What the import changed; definitions the document omits are kept as they are" });

export type ConfigurationChanges = z.output<typeof configurationChangesSchema>;
