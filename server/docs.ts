import { createHash } from "node:crypto";
import type { H3, H3Event } from "h3";
import { referenceScript } from "./docs-page/script.js";
import { referenceStyle } from "./docs-page/style.js";
import { defineHostHandler } from "./handle.js";
import type { HostState } from "./handle.js";
import { methodNotAllowed } from "./request.js";
import { apiBasePath } from "./route.js";

/**
 * The API reference page, `GET /api/v1/docs`: our own small renderer of the API's OpenAPI
 * document (server/docs-page/), one HTML page, one script and one stylesheet, all served from
 * here. Nothing comes from a third party and nothing reports anywhere: deployments may be
 * air-gapped, and a security product does not phone home. The script is a file of its own, so
 * the page sends a strict Content-Security-Policy (no inline script or style, Trusted Types).
 *
 * Every address in the page is relative to the page itself, so it works wherever the host
 * mounted the app: under an h3 prefix (the path still holds it) as under Express or Hono (they
 * strip it before casekit sees the request). The page needs no key: it is the same static page
 * for everyone and reads the public document; "Try it" takes a key like any other client.
 */

export const docsPath = `${apiBasePath}/docs`;

interface Asset {
  name: string;
  type: string;
  body: string;
  /** Content hash, in the page's asset URLs: a changed asset gets a new URL, so it can be cached for good. */
  version: string;
}

const assets: Asset[] = [
  { name: "reference.js", type: "text/javascript; charset=utf-8", body: referenceScript },
  { name: "reference.css", type: "text/css; charset=utf-8", body: referenceStyle },
].map((asset) => ({ ...asset, version: createHash("sha256").update(asset.body).digest("hex").slice(0, 16) }));

/**
 * Only this origin, and only the script and stylesheet files (no inline code, no eval); the
 * script builds the DOM without HTML strings, so Trusted Types can forbid them outright. It
 * fetches the document and, for "Try it", this API (connect-src). Framing and forms are refused.
 */
export const docsContentSecurityPolicy = [
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

/** Registers the page and its assets on the app, GET and HEAD only. */
export function registerDocsPage(app: H3, host: HostState): void {
  register(app, host, docsPath, async (event) => pageResponse(event.url.pathname));
  for (const asset of assets) {
    register(app, host, `${docsPath}/${asset.name}`, async () => {
      return new Response(asset.body, {
        headers: {
          "content-type": asset.type,
          // The page asks for each asset under its content hash, so it can be kept for good.
          "cache-control": "public, max-age=31536000, immutable",
        },
      });
    });
  }
}

/** GET and HEAD answer `respond`'s response; any other method is 405. */
function register(app: H3, host: HostState, route: string, respond: (event: H3Event) => Promise<Response>): void {
  // Nothing here should fail; if it does, a 500 problem, the error to the host's hook only (defineHostHandler).
  const handler = defineHostHandler(host, (event) => respond(event), { route });
  app.get(route, handler);
  app.head(route, handler);
  app.all(
    route,
    defineHostHandler(host, async (_event, exchange) => methodNotAllowed(exchange.headers, ["GET"]), { route }),
  );
}

/**
 * The page. Its addresses are relative to its own URL (`…/api/v1/docs`, or `…/api/v1/docs/`
 * which h3 routes here too), never absolute, so a prefix the host stripped still works.
 */
function pageResponse(pagePath: string): Response {
  const up = pagePath.endsWith("/") ? "../" : "";
  const [script, style] = assets.map((asset) => escapeHtml(`${up}docs/${asset.name}?v=${asset.version}`));
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${style}">
<script src="${script}" defer></script>
</head>
<body>
<a class="skip" href="#operations">Skip to the operations</a>
<main id="reference" data-openapi="${escapeHtml(`${up}openapi.json`)}" aria-busy="true">
<h1>API reference</h1>
<p id="status" role="status">Loading the API description…</p>
<noscript><p>This page renders the API's OpenAPI document with JavaScript. The document itself: <a href="${escapeHtml(`${up}openapi.json`)}">openapi.json</a>.</p></noscript>
</main>
</body>
</html>
`;
  return new Response(html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": docsContentSecurityPolicy,
      "cache-control": "no-cache",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
    },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
