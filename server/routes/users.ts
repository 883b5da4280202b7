import { userCreateSchema, userCreatedSchema, userListQuerySchema, userListSchema, userSchema, userUpdateSchema } from "../../core/index.js";
import { defineApiRoute } from "../route.js";

export const userRoutes = [
  defineApiRoute({
    method: "GET",
    path: "/users",
    operationId: "listUsers",
    tag: "Users",
    summary: "List the organization's users",
    description: "Newest first, keyset-paged; `email` matches exactly (case-insensitive).",
    scope: "users:read",
    query: userListQuerySchema,
    response: userListSchema,
    handle: ({ kit, principal, query }) => kit.users.list(principal, query),
  }),
  defineApiRoute({
    method: "POST",
    path: "/users",
    operationId: "createUser",
    tag: "Users",
    summary: "Create a user",
    description:
      "Answers 200 with the stored user; without `password`, one is generated and returned this once. Nobody grants what they do not hold: a role with a scope the caller lacks (an admin needs every scope, `org:admin` included) is 403 `missing_scope`; a TLP clearance above the caller's is 403 `tlp_restricted`. An email already in use is 409 `conflict`.",
    scope: "users:write",
    body: userCreateSchema,
    response: userCreatedSchema,
    errors: [409],
    handle: ({ kit, principal, body }) => kit.users.create(principal, body),
  }),
  defineApiRoute({
    method: "GET",
    path: "/users/:id",
    operationId: "getUser",
    tag: "Users",
    summary: "Get a user",
    description: "404 for an unknown id and for another organization's user alike.",
    scope: "users:read",
    response: userSchema,
    handle: ({ kit, principal, params }) => kit.users.get(principal, params.id ?? ""),
  }),
  defineApiRoute({
    method: "PATCH",
    path: "/users/:id",
    operationId: "updateUser",
    tag: "Users",
    summary: "Change a user",
    description:
      "Send only the fields to change. Nobody changes their own role, status or TLP clearance (409 `conflict`). Nobody changes a user who holds a scope they lack or a clearance above theirs, as the user is or as the change would leave them (403 `missing_scope` / `tlp_restricted`); setting a password also needs `org:admin`. A new password or status ends every session of the user; a status other than `active` stops their keys on their very next request. `deleted` is final (409 `invalid_transition`).",
    scope: "users:write",
    body: userUpdateSchema,
    response: userSchema,
    errors: [409],
    handle: ({ kit, principal, params, body }) => kit.users.update(principal, params.id ?? "", body),
  }),
];
