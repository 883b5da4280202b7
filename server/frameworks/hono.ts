// casekit/hono: the casekit API as a Hono handler. Hono's types only, and its route helper (Hono
// is then installed: only this entry point imports it).
import type { Context } from "hono";
import { routePath } from "hono/route";
import { requestWithURL } from "h3";
import type { CaseKit } from "../../core/index.js";
import { createCaseKitApp } from "../app.js";
import type { CaseKitAppOptions } from "../app.js";
import { recordMountPrefix, splitAtPattern } from "../base-path.js";

export type CaseKitHonoOptions = Omit<CaseKitAppOptions, "handleUnknownPaths">;

/**
 * `app.all("/security/*", caseKitHono(kit))`: the API at `/security/api/v1/…`, the account area,
 * `/security/livez` and `/security/readyz`; an unknown path under the prefix is a 404 problem.
 * The prefix is what the route matched (so `app.route()` and `basePath()` prefixes and path
 * parameters count), and becomes the base path (`options.basePath` wins). The request goes on
 * with the prefix stripped and its body unread, wherever Hono runs (Node, Bun, Deno, workers);
 * a body a middleware already read (`c.req.json()`) is answered 500 `body_already_consumed`.
 */
export function caseKitHono(kit: CaseKit, options: CaseKitHonoOptions = {}): (c: Context) => Promise<Response> {
  const app = createCaseKitApp(kit, options);
  return async (c) => {
    const url = new URL(c.req.raw.url);
    const { prefix, rest } = splitAtPattern(url.pathname, routePath(c));
    url.pathname = rest;
    // A view of the same request under the stripped URL: the body is neither copied nor read.
    const request = requestWithURL(c.req.raw, url.href);
    recordMountPrefix(request, prefix);
    return app.fetch(request);
  };
}
