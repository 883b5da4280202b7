import { customFieldCreateSchema, customFieldJsonSchemaSchema, customFieldListQuerySchema, customFieldListSchema, customFieldSchema, customFieldSchemaQuerySchema, customFieldUpdateSchema } from "../../core/index.js";
import { defineApiRoute } from "../route.js";

const switchNote =
  "Once an organization defines a field for a scope, that scope's `customFields` take only defined keys (400 `validation_failed` names each field); before, they stay free-form.";

export const customFieldRoutes = [
  defineApiRoute({
    method: "POST",
    path: "/custom-fields",
    operationId: "createCustomField",
    tag: "Custom Fields",
    summary: "Define a custom field",
    description: `Admin only. The key and type never change. enum and multi_enum fields take options with stable ids (values store the id). ${switchNote} Options that do not fit the type (none for an enum, some for a string), bounds that do not apply to it, a pattern that does not compile, repeated option ids and a default that is not a value of the field are 422 \`invalid_field_definition\`. A key already defined is 409 \`conflict\`. Event: \`custom_field.created\`.`,
    scope: "org:admin",
    body: customFieldCreateSchema,
    response: customFieldSchema,
    errors: [409, 422],
    handle: ({ kit, principal, body }) => kit.customFields.create(principal, body),
  }),
  defineApiRoute({
    method: "GET",
    path: "/custom-fields",
    operationId: "listCustomFields",
    tag: "Custom Fields",
    summary: "List custom fields",
    description: "Newest first, keyset-paged; `scope` keeps the fields of one kind of record.",
    scope: "cases:read",
    query: customFieldListQuerySchema,
    response: customFieldListSchema,
    handle: ({ kit, principal, query }) => kit.customFields.list(principal, query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/custom-fields/schema",
    operationId: "getCustomFieldSchema",
    tag: "Custom Fields",
    summary: "The JSON Schema of a scope's custom fields",
    description: "A JSON Schema (draft 2020-12) of `customFields` for records of the scope, built from the organization's live definitions the caller is cleared to see; with none, any object.",
    scope: "cases:read",
    query: customFieldSchemaQuerySchema,
    response: customFieldJsonSchemaSchema,
    handle: ({ kit, principal, query }) => kit.customFields.schema(principal, query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/custom-fields/:id",
    operationId: "getCustomField",
    tag: "Custom Fields",
    summary: "Get a custom field",
    description: "404 for an unknown id and for another organization's field alike.",
    scope: "cases:read",
    response: customFieldSchema,
    handle: ({ kit, principal, params }) => kit.customFields.get(principal, params.id ?? ""),
  }),
  defineApiRoute({
    method: "PATCH",
    path: "/custom-fields/:id",
    operationId: "updateCustomField",
    tag: "Custom Fields",
    summary: "Change a custom field",
    description:
      "Admin only. The same rules as at creation (422 `invalid_field_definition`). Options may be added, relabelled or deprecated, never removed (a deprecated option stays on the records that hold it, no new value may choose it). `archived: true` archives the field: no new values, stored ones stay. Event: `custom_field.updated`.",
    scope: "org:admin",
    body: customFieldUpdateSchema,
    response: customFieldSchema,
    errors: [422],
    handle: ({ kit, principal, params, body }) => kit.customFields.update(principal, params.id ?? "", body),
  }),
];
