import { getQuery, getRouterParams } from "h3";
import type { H3Event } from "h3";
import { CaseKitError } from "../core/index.js";

/** h3's parsed query (repeated parameters become arrays), copied into a plain object. */
export function queryOf(event: H3Event): Record<string, string | string[]> {
  // Object.fromEntries defines own properties, so a `__proto__` parameter stays a plain key.
  return Object.fromEntries(Object.entries(getQuery(event) as Record<string, string | string[]>));
}

/** Path parameters, percent-decoded; a malformed escape stays as it came (the core finds no such id). */
export function paramsOf(event: H3Event): Record<string, string> {
  try {
    return { ...getRouterParams(event, { decode: true }) };
  } catch {
    return { ...getRouterParams(event) };
  }
}

/** A known path with a method it does not serve: 405 with `Allow`. */
export function methodNotAllowed(headers: Headers, methods: readonly string[]): never {
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
