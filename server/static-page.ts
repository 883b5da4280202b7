import { createHash } from "node:crypto";
import type { H3, H3Event } from "h3";
import { defineHostHandler } from "./handle.js";
import type { HostState } from "./handle.js";
import { methodNotAllowed } from "./request.js";

/**
 * What the host's own pages (the API reference, the account area) share: one HTML page plus a
 * script and a stylesheet shipped as strings, answered to GET and HEAD only.
 *
 * The policy: only this origin, and only the script and stylesheet files (no inline code, no
 * eval); the scripts build the DOM without HTML strings, so Trusted Types can forbid them
 * outright. They fetch this API (connect-src). Framing and form posts are refused.
 */
export const pageContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

export interface PageAsset {
  name: string;
  type: string;
  body: string;
  /** Content hash, in the page's asset URLs: a changed asset gets a new URL, so it can be cached for good. */
  version: string;
}

/** A page's script and stylesheet with their content hashes. */
export function pageAssets(script: { name: string; body: string }, style: { name: string; body: string }): [PageAsset, PageAsset] {
  const versioned = (asset: { name: string; body: string }, type: string): PageAsset => ({
    ...asset,
    type,
    version: createHash("sha256").update(asset.body).digest("hex").slice(0, 16),
  });
  return [versioned(script, "text/javascript; charset=utf-8"), versioned(style, "text/css; charset=utf-8")];
}

/** GET and HEAD answer `respond`'s response; any other method is 405. */
export function registerReadOnly(app: H3, host: HostState, route: string, respond: (event: H3Event) => Promise<Response>): void {
  // Nothing here should fail; if it does, a 500 problem, the error to the host's hook only (defineHostHandler).
  const handler = defineHostHandler(host, (event) => respond(event), { route });
  app.get(route, handler);
  app.head(route, handler);
  app.all(route, defineHostHandler(host, async (_event, exchange) => methodNotAllowed(exchange.headers, ["GET"]), { route }));
}

/** Each asset at `<folder>/<name>`; the page asks for it under its content hash, so it is kept for good. */
export function registerAssets(app: H3, host: HostState, folder: string, assets: readonly PageAsset[]): void {
  for (const asset of assets) {
    registerReadOnly(app, host, `${folder}/${asset.name}`, async () => {
      return new Response(asset.body, { headers: { "content-type": asset.type, "cache-control": "public, max-age=31536000, immutable" } });
    });
  }
}

/** A page's HTML under the shared policy; `cacheControl` says whether a browser may keep it. */
export function htmlPage(html: string, cacheControl: "no-cache" | "no-store"): Response {
  return new Response(html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": pageContentSecurityPolicy,
      "cache-control": cacheControl,
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
    },
  });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
