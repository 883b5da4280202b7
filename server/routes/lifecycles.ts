import {
  caseSchema,
  alertSchema,
  caseLifecycleListSchema,
  lifecyclePublishSchema,
  lifecycleSchema,
  lifecycleVersionListSchema,
  lifecycleVersionQuerySchema,
  statusHistoryQuerySchema,
  statusHistorySchema,
  taskSchema,
  transitionListSchema,
  caseTransitionRequestSchema,
  alertTransitionRequestSchema,
  taskTransitionRequestSchema,
} from "../../core/index.js";
import type { LifecycleEntity, Scope } from "../../core/index.js";
import type { ApiRoute } from "../route.js";
import { defineApiRoute } from "../route.js";

/** Per entity: its name in paths and operation ids, its scopes and the record schema a transition answers with. */
const entities = [
  { entity: "case", collection: "cases", name: "Case", read: "cases:read", write: "cases:write", record: caseSchema, transition: caseTransitionRequestSchema },
  { entity: "alert", collection: "alerts", name: "Alert", read: "alerts:read", write: "alerts:write", record: alertSchema, transition: alertTransitionRequestSchema },
  { entity: "task", collection: "tasks", name: "Task", read: "tasks:read", write: "tasks:write", record: taskSchema, transition: taskTransitionRequestSchema },
] as const satisfies readonly { entity: LifecycleEntity; collection: string; name: string; read: Scope; write: Scope; record: unknown; transition: unknown }[];

/** The organization's lifecycle of each entity: read, publish, versions. */
const definitionRoutes: ApiRoute[] = entities.flatMap(({ entity, name, read }) => [
  defineApiRoute({
    method: "GET",
    path: `/lifecycles/${entity}`,
    operationId: `get${name}Lifecycle`,
    tag: "Workflows",
    summary: `The organization's ${entity} lifecycle`,
    description: `The version in force: the newest published one, or the built-in default (version 0) while the organization has published none.${entity === "case" ? " Cases whose type names a named lifecycle follow that one instead (GET /lifecycles/case/named)." : ""}`,
    scope: read,
    response: lifecycleSchema,
    handle: ({ kit, principal }) => kit.lifecycles.get(principal, entity),
  }),
  defineApiRoute({
    method: "PUT",
    path: `/lifecycles/${entity}`,
    operationId: `publish${name}Lifecycle`,
    tag: "Workflows",
    summary: `Publish a new version of the ${entity} lifecycle`,
    description:
      "Status keys unique, at least one status of the new category, transitions naming known statuses and gates; `mapping` sends each dropped status that records are in to a status of the new version (the records move, with their history). A rule broken is 422 `invalid_lifecycle` naming each by path; a version published meanwhile is 409 `conflict`.",
    scope: "org:admin",
    body: lifecyclePublishSchema,
    response: lifecycleSchema,
    errors: [409, 422],
    handle: ({ kit, principal, body }) => kit.lifecycles.publish(principal, entity, body),
  }),
  defineApiRoute({
    method: "GET",
    path: `/lifecycles/${entity}/versions`,
    operationId: `list${name}LifecycleVersions`,
    tag: "Workflows",
    summary: `Published versions of the ${entity} lifecycle`,
    description: "Newest first, keyset-paged with `limit` and `cursor`; empty while the built-in default is in force.",
    scope: read,
    query: lifecycleVersionQuerySchema,
    response: lifecycleVersionListSchema,
    handle: ({ kit, principal, query }) => kit.lifecycles.versions(principal, entity, query),
  }),
]);

/**
 * Named case lifecycles: besides the default one (the routes above), an organization may publish
 * case lifecycles under a key that case types name (`lifecycle`); a case follows its type's.
 * `default` as the key is the default lifecycle itself.
 */
const namedRoutes: ApiRoute[] = [
  defineApiRoute({
    method: "GET",
    path: "/lifecycles/case/named",
    operationId: "listCaseLifecycles",
    tag: "Workflows",
    summary: "The organization's case lifecycles",
    description: "The default case lifecycle first (key `default`), then every named one in force, by key. One page (`nextCursor` null): an organization has at most 50 named case lifecycles.",
    scope: "cases:read",
    response: caseLifecycleListSchema,
    handle: ({ kit, principal }) => kit.lifecycles.listCase(principal),
  }),
  defineApiRoute({
    method: "GET",
    path: "/lifecycles/case/named/:key",
    operationId: "getNamedCaseLifecycle",
    tag: "Workflows",
    summary: "A named case lifecycle",
    description: "Its newest version; 404 `not_found` for a key never published. `default` answers as GET /lifecycles/case.",
    scope: "cases:read",
    response: lifecycleSchema,
    handle: ({ kit, principal, params }) => kit.lifecycles.get(principal, "case", params.key ?? ""),
  }),
  defineApiRoute({
    method: "PUT",
    path: "/lifecycles/case/named/:key",
    operationId: "publishNamedCaseLifecycle",
    tag: "Workflows",
    summary: "Publish a version of a named case lifecycle",
    description:
      "The first version creates the lifecycle (version 1; 409 `conflict` past 50 named case lifecycles); case types may then name it. The rules of PUT /lifecycles/case hold, and `mapping` moves the cases that follow this lifecycle (those of the types naming it) only, each move in their status history. A rule broken is 422 `invalid_lifecycle`; a version published meanwhile is 409 `conflict`.",
    scope: "org:admin",
    body: lifecyclePublishSchema,
    response: lifecycleSchema,
    errors: [409, 422],
    handle: ({ kit, principal, params, body }) => kit.lifecycles.publish(principal, "case", body, params.key ?? ""),
  }),
  defineApiRoute({
    method: "GET",
    path: "/lifecycles/case/named/:key/versions",
    operationId: "listNamedCaseLifecycleVersions",
    tag: "Workflows",
    summary: "Published versions of a named case lifecycle",
    description: "Newest first, keyset-paged with `limit` and `cursor`; 404 `not_found` for a key never published.",
    scope: "cases:read",
    query: lifecycleVersionQuerySchema,
    response: lifecycleVersionListSchema,
    handle: ({ kit, principal, params, query }) => kit.lifecycles.versions(principal, "case", query, params.key ?? ""),
  }),
];

/** A record's transitions and history. */
const recordRoutes: ApiRoute[] = entities.flatMap(({ entity, collection, name, read, write, record, transition }) => [
  defineApiRoute({
    method: "GET",
    path: `/${collection}/:id/transitions`,
    operationId: `list${name}Transitions`,
    tag: "Workflows",
    summary: `What the caller may do next with a ${entity}`,
    description: "Each transition the caller's role may take from the current status, with the gates it still needs (`unmet`, empty when it can be taken now). Read access as the record's GET; a record shared with the organization lists none.",
    scope: read,
    response: transitionListSchema,
    handle: ({ kit, principal, params }) => kit.transitions.list(principal, entity, params.id ?? ""),
  }),
  defineApiRoute({
    method: "POST",
    path: `/${collection}/:id/transitions`,
    operationId: `transition${name}`,
    tag: "Workflows",
    summary: `Move a ${entity} to another status`,
    description:
      "The record's PATCH with `to` as its status, `fields` beside it and `reason` in the status history: the same rules. A move the lifecycle does not offer the caller is 409 `invalid_transition`; gates that do not hold (the custom fields required on close or on entering `to` among them) are 409 `transition_blocked` listing them in `unmet` (`mandatory_tasks_open` when that gate alone, `required_fields_unset` when only such fields).",
    scope: write,
    body: transition,
    response: record,
    errors: [409, 422],
    handle: ({ kit, principal, params, body }) => kit.transitions.perform(principal, entity, params.id ?? "", body),
  }),
  defineApiRoute({
    method: "GET",
    path: `/${collection}/:id/history`,
    operationId: `get${name}History`,
    tag: "Workflows",
    summary: `The status history of a ${entity}`,
    description: "Every status change, oldest first, keyset-paged with `limit` and `cursor`: from, to, their categories, who, when and why. Read access as the record's GET.",
    scope: read,
    query: statusHistoryQuerySchema,
    response: statusHistorySchema,
    handle: ({ kit, principal, params, query }) => kit.transitions.history(principal, entity, params.id ?? "", query),
  }),
]);

export const lifecycleRoutes: readonly ApiRoute[] = [...definitionRoutes, ...namedRoutes, ...recordRoutes];
