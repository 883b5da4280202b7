import { apiKeyCreateSchema, apiKeyCreatedSchema, apiKeyListQuerySchema, apiKeyListSchema, apiKeySchema } from "../../core/index.js";
import type { KeyStatusAction } from "../../core/index.js";
import { defineApiRoute } from "../route.js";

const statusActions: { action: KeyStatusAction; summary: string; description: string }[] = [
  { action: "suspend", summary: "Suspend an API key", description: "An active key stops working (401 `key_suspended`) until resumed." },
  { action: "resume", summary: "Resume a suspended API key", description: "Only a suspended key can be resumed; anything else is 409 `invalid_transition`." },
  { action: "revoke", summary: "Revoke an API key", description: "Final: a revoked key answers 401 `key_revoked` and cannot be resumed." },
];

const managerNote =
  "Manages every key of the caller's organization; changing a key takes its scopes and at least its clearance (403 `missing_scope` / `tlp_restricted`). People manage their own keys in the account area (`/account/api-keys`).";

export const apiKeyRoutes = [
  defineApiRoute({
    method: "POST",
    path: "/api-keys",
    operationId: "createApiKey",
    errors: [422],
    tag: "API Keys",
    summary: "Create an API key",
    description: [
      "Answers 200 with the stored key and, this once, its secret in `key`; only a hash is kept.",
      "The caller owns the new key. Scopes the caller does not hold are 403 `missing_scope`; a TLP clearance above the caller's is 403 `tlp_restricted`; a tier above the caller's is 403 `tier_restricted`; what the organization's policy forbids (clearance, tier, lifetime; `unlimited` by default) is 403 `organization_restricted`.",
      managerNote,
    ].join(" "),
    scope: "keys:write",
    body: apiKeyCreateSchema,
    response: apiKeyCreatedSchema,
    handle: ({ kit, principal, body }) => kit.keys.create(principal, body),
  }),
  defineApiRoute({
    method: "GET",
    path: "/api-keys",
    operationId: "listApiKeys",
    tag: "API Keys",
    summary: "List API keys",
    description: `Newest first, keyset-paged. Never shows a secret or its hash. ${managerNote}`,
    scope: "keys:write",
    query: apiKeyListQuerySchema,
    response: apiKeyListSchema,
    handle: ({ kit, principal, query }) => kit.keys.list(principal, query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/api-keys/:id",
    operationId: "getApiKey",
    tag: "API Keys",
    summary: "Get an API key",
    description: "Never shows the secret or its hash. 404 for an unknown id and for another organization's key alike.",
    scope: "keys:write",
    response: apiKeySchema,
    handle: ({ kit, principal, params }) => kit.keys.get(principal, params.id ?? ""),
  }),
  defineApiRoute({
    method: "DELETE",
    path: "/api-keys/:id",
    operationId: "deleteApiKey",
    tag: "API Keys",
    summary: "Delete an API key",
    description: "Removes the key for good (it answers 401 `invalid_key` from then on) and answers 200 with the record as it was. The audit trail keeps it.",
    scope: "keys:write",
    response: apiKeySchema,
    handle: ({ kit, principal, params }) => kit.keys.delete(principal, params.id ?? ""),
  }),
  ...statusActions.map(({ action, summary, description }) =>
    defineApiRoute({
      method: "POST",
      path: `/api-keys/:id/${action}`,
      operationId: `${action}ApiKey`,
      tag: "API Keys",
      summary,
      description: `${description} Answers 200 with the changed key.`,
      scope: "keys:write",
      response: apiKeySchema,
      errors: [409],
      handle: ({ kit, principal, params }) => kit.keys.changeStatus(principal, params.id ?? "", action),
    }),
  ),
];
