import { z } from "zod";
import { caseTypeCreateSchema } from "../case-types/schema.js";
import { customFieldCreateSchema } from "../custom-fields/schema.js";
import { lifecyclePublishSchema } from "../lifecycles/schema.js";

const archivedSchema = z.boolean().default(false).meta({ description: "true: archived (no new records take it)" });

export const configurationDocumentSchema = z
  .strictObject({
    version: z.literal(1).meta({ description: "The document format; 1 today" }),
    lifecycles: z.strictObject({ case: lifecyclePublishSchema, alert: lifecyclePublishSchema, task: lifecyclePublishSchema }),
    caseTypes: z.array(caseTypeCreateSchema.extend({ archived: archivedSchema })).max(500),
    customFields: z.array(customFieldCreateSchema.extend({ archived: archivedSchema })).max(500),
  })
  .meta({
    id: "Configuration",
    description: "An organization's lifecycles, case types and custom fields; keys are the identities, no ids or timestamps",
    examples: [
      {
        version: 1,
        lifecycles: {
          case: { statuses: [{ key: "open", label: "Open", category: "new", final: false, color: null }, { key: "closed", label: "Closed", category: "closed", final: true, color: null }], transitions: [{ from: ["open"], to: "closed" }] },
          alert: {
            statuses: [{ key: "new", label: "New", category: "new", final: false, color: null }, { key: "imported", label: "Imported", category: "closed", final: true, color: null }],
            transitions: [{ from: ["new"], to: "imported" }],
          },
          task: { statuses: [{ key: "waiting", label: "Waiting", category: "new", final: false, color: null }, { key: "done", label: "Done", category: "closed", final: true, color: null }], transitions: [{ from: ["waiting"], to: "done" }] },
        },
        caseTypes: [{ key: "phishing", label: "Phishing", customFields: ["impact"], archived: false }],
        customFields: [{ key: "impact", label: "Impact", scopes: ["case"], type: "enum", options: [{ id: "low", label: "Low", deprecated: false }], filterable: true, archived: false }],
      },
    ],
  });

export type ConfigurationDocument = z.output<typeof configurationDocumentSchema>;

const sectionChangesSchema = z.object({ created: z.array(z.string()), updated: z.array(z.string()), unchanged: z.array(z.string()) });
const lifecycleChangeSchema = z.enum(["published", "unchanged"]);

export const configurationChangesSchema = z
  .object({
    lifecycles: z.object({ case: lifecycleChangeSchema, alert: lifecycleChangeSchema, task: lifecycleChangeSchema }),
    caseTypes: sectionChangesSchema.meta({ description: "Keys per outcome" }),
    customFields: sectionChangesSchema.meta({ description: "Keys per outcome" }),
  })
  .meta({ id: "ConfigurationChanges", description: "What the import changed; definitions the document omits are kept as they are" });

export type ConfigurationChanges = z.output<typeof configurationChangesSchema>;
