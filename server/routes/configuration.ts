import { configurationChangesSchema, configurationDocumentSchema, configurationSchema } from "../../core/index.js";
import { defineApiRoute } from "../route.js";

/** The organization's lifecycles, case types and custom fields as one document (configuration as code). */
export const configurationRoutes = [
  defineApiRoute({
    method: "GET",
    path: "/configuration",
    operationId: "exportConfiguration",
    tag: "Workflows",
    summary: "Export the organization's definitions",
    description: "Admin only. Lifecycles in force (the built-in default too), case types and custom fields (archived ones too) sorted by key, without ids or timestamps: keys are the identities. PUT it back and nothing changes.",
    scope: "org:admin",
    response: configurationSchema,
    handle: ({ kit, principal }) => kit.configuration.export(principal),
  }),
  defineApiRoute({
    method: "PUT",
    path: "/configuration",
    operationId: "importConfiguration",
    tag: "Workflows",
    summary: "Apply a whole configuration document",
    description:
      "Admin only, in one unit of work with the rules of each definition's own route: custom fields and case types are created or changed by key, a lifecycle is published only when its statuses or transitions differ. What the document omits is kept, never deleted. A field's type never changes. Any broken rule is 422 `invalid_configuration` listing every one by JSON path, and nothing changes. Events and audit entries as the individual routes write them.",
    scope: "org:admin",
    body: configurationDocumentSchema,
    response: configurationChangesSchema,
    errors: [409, 422],
    handle: ({ kit, principal, body }) => kit.configuration.import(principal, body),
  }),
];
