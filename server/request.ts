import { getQuery, getRouterParams } from "h3";
import type { H3Event } from "h3";
import { CaseKitError } from "../core/index.js";
import type { AnswerHeaders } from "./answer.js";
import { hasWellFormedIds } from "./path-ids.js";

/** h3's parsed query (repeated parameters become arrays), copied into a plain object. */
export function queryOf(event: H3Event): Record<string, string | string[]> {
  // Object.fromEntries defines own properties, so a `__proto__` parameter stays a plain key.
  return Object.fromEntries(Object.entries(getQuery(event) as Record<string, string | string[]>));
}

/**
 * Path parameters, percent-decoded. Every one is an id; one that does not have its kind's shape
 * (path-ids.ts) names no record, so it is answered 404 here and never reaches the core or a
 * database (where a NUL byte, say, would be an error instead of "no such record").
 */
export function paramsOf(event: H3Event): Record<string, string> {
  let params: Record<string, string>;
  try {
    params = { ...getRouterParams(event, { decode: true }) };
  } catch {
    params = { ...getRouterParams(event) };
  }
  const route = event.context.matchedRoute?.route;
  if (route && !hasWellFormedIds(route, params)) throw new CaseKitError("not_found");
  return params;
}

/** A known path with a method it does not serve: 405 with `Allow`. */
export function methodNotAllowed(headers: AnswerHeaders, methods: readonly string[]): never {
  const allowed = methods.includes("GET") ? [...methods, "HEAD"] : [...methods];
  headers.set("allow", allowed.join(", "));
  throw new CaseKitError("method_not_allowed", `This endpoint accepts ${allowed.join(", ")}`);
}

/** Groups a route table's methods by path, in table order. */
export function methodsByPath(routes: readonly { method: string; path: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const route of routes) out.set(route.path, [...(out.get(route.path) ?? []), route.method]);
  return out;
}
