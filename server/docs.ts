import type { H3 } from "h3";
import { referenceScript } from "./docs-page/script.js";
import { referenceStyle } from "./docs-page/style.js";
import type { HostState } from "./handle.js";
import { apiBasePath } from "./route.js";
import { escapeHtml, htmlPage, pageAssets, pageContentSecurityPolicy, registerAssets, registerReadOnly } from "./static-page.js";

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

const assets = pageAssets({ name: "reference.js", body: referenceScript }, { name: "reference.css", body: referenceStyle });

/** The reference page's policy (server/static-page.ts), named for the tests that read it. */
export const docsContentSecurityPolicy = pageContentSecurityPolicy;

/** Registers the page and its assets on the app, GET and HEAD only. */
export function registerDocsPage(app: H3, host: HostState): void {
  registerReadOnly(app, host, docsPath, async (event) => pageResponse(event.url.pathname));
  registerAssets(app, host, docsPath, assets);
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
  return htmlPage(html, "no-cache");
}
