import { idPattern } from "../core/schema/common.js";
import { lifecycleKeyPattern } from "../core/lifecycles/schema.js";

/**
 * Which kind of id each path parameter holds, read from the route itself: `:caseId`, `:alertId`,
 * `:taskId`, `:deliveryId` name their kind; `:id` is the id of the collection before it
 * (`/webhooks/:id`). One table for the OpenAPI document (a `pattern` per parameter) and for the
 * host (an id of the wrong shape is answered 404 before the core or storage sees it).
 */
const byName: Record<string, string> = { case: "case", alert: "alert", task: "task", delivery: "dlv" };
const byCollection: Record<string, string> = {
  cases: "case",
  alerts: "alert",
  tasks: "task",
  observables: "obs",
  comments: "cmt",
  "api-keys": "key",
  users: "user",
  teams: "team",
  webhooks: "whk",
  "custom-fields": "cfd",
  "case-types": "ctype",
  "audit-sinks": "snk",
};

/** The id prefix of `param` in `routePath` (rou3 syntax); throws for a parameter no table names. */
export function idPrefixOf(routePath: string, param: string): string {
  const named = /^(\w+)Id$/.exec(param);
  const segments = routePath.split("/");
  const prefix = named ? byName[named[1]!] : byCollection[segments[segments.indexOf(`:${param}`) - 1] ?? ""];
  if (!prefix) throw new Error(`No id kind for the path parameter :${param} of ${routePath}: add it to server/path-ids.ts`);
  return prefix;
}

/**
 * Parameters that hold a definition's key rather than an id, by the collection before them
 * (`/lifecycles/case/named/:key`): the key's own pattern, from the schema that validates it.
 */
const keysByCollection: Record<string, RegExp> = { named: lifecycleKeyPattern };

/**
 * The pattern a path parameter's value must match: its kind of id's, or a key's. Kept per route
 * template and parameter (a finite set): every request with a path parameter checks it.
 */
const patterns = new Map<string, RegExp>();
function patternOfParam(routePath: string, param: string): RegExp {
  const cacheKey = `${routePath}\0${param}`;
  let pattern = patterns.get(cacheKey);
  if (pattern === undefined) {
    const segments = routePath.split("/");
    const key = param === "key" ? keysByCollection[segments[segments.indexOf(`:${param}`) - 1] ?? ""] : undefined;
    pattern = key ?? idPattern(idPrefixOf(routePath, param));
    patterns.set(cacheKey, pattern);
  }
  return pattern;
}

/** The JSON Schema of a path parameter, as the document declares it. */
export function pathIdSchema(routePath: string, param: string): { type: "string"; pattern: string } {
  return { type: "string", pattern: patternOfParam(routePath, param).source };
}

/** True when every parameter has the shape of its kind of id (or key). */
export function hasWellFormedIds(routePath: string, params: Record<string, string>): boolean {
  return Object.entries(params).every(([name, value]) => patternOfParam(routePath, name).test(value));
}
