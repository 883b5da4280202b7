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
      "Answers 200 with the stored user; without `password`, one is generated and returned this once. Creating an admin also needs `org:admin`; a TLP clearance above the caller's is 403 `tlp_restricted`. An email already in use is 409 `conflict`.",
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
      "Send only the fields to change. A status other than `active` stops every key and session of the user on its very next request. Nobody changes their own role or status (409 `conflict`); making or unmaking an admin needs `org:admin`; `deleted` is final (409 `invalid_transition`).",
    scope: "users:write",
    body: userUpdateSchema,
    response: userSchema,
    errors: [409],
    handle: ({ kit, principal, params, body }) => kit.users.update(principal, params.id ?? "", body),
  }),
];
