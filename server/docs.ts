import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { defineHandler } from "h3";
import type { H3, H3Event } from "h3";
import { version } from "../core/index.js";
import { defineHostHandler } from "./handle.js";
import type { HostState } from "./handle.js";
import { problemResponse, toProblem } from "./problem.js";
import { methodNotAllowed } from "./request.js";
import { apiBasePath } from "./route.js";

/**
 * The API reference page, `GET /api/v1/docs`: Swagger UI rendering the API's own OpenAPI document.
 *
 * Every asset is served from here (deployments may be air-gapped): Swagger UI's files straight
 * from the installed swagger-ui-dist package, a fixed allowlist of names (each its own route, so
 * no name from the request ever reaches the file system), and our init script as a file of its
 * own rather than inline, so the page can send a Content-Security-Policy without 'unsafe-inline'
 * for scripts. The page needs no key: it is the same static page for everyone and reads the
 * public document; calling the API from it ("Try it out") takes a key like any other client.
 */

export const docsPath = `${apiBasePath}/docs`;

/** swagger-ui-dist files the page uses, with their content types. Source maps only for devtools. */
const swaggerFiles: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui.css.map": "application/json",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-bundle.js.map": "application/json",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

/** Points Swagger UI at the document named by the page; no network access beyond it. */
const initScript = `// casekit API reference: Swagger UI on this API's OpenAPI document (the page names its address).
"use strict";
(function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-openapi-url"),
    domNode: root,
    deepLinking: true,
    // No calls to swagger.io's online validator: the page must work air-gapped.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
})();
`;

/**
 * Scripts and styles only from this origin (Swagger UI's SVG icons are data: images; React sets
 * style properties through the DOM, which CSP allows). Framing is refused.
 */
export const docsContentSecurityPolicy = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Registers the page and its assets on the app, GET and HEAD only. */
export function registerDocsPage(app: H3, host: HostState): void {
  const assets = new Map<string, () => Promise<Response>>([
    ["init.js", async () => new Response(initScript, { headers: { "content-type": "text/javascript; charset=utf-8" } })],
    ...Object.entries(swaggerFiles).map(([name, type]): [string, () => Promise<Response>] => [
      name,
      async () => new Response(new Uint8Array(await swaggerFile(name)), { headers: { "content-type": type } }),
    ]),
  ]);

  register(app, host, docsPath, async (event) => pageResponse(event.url.pathname));
  for (const [name, respond] of assets) {
    register(app, host, `${docsPath}/${name}`, async () => {
      const response = await respond();
      // The page asks for each asset with a version in the query string, so it can be kept long.
      response.headers.set("cache-control", "public, max-age=31536000, immutable");
      return response;
    });
  }
}

/** GET and HEAD answer `respond`'s response; any other method is 405. */
function register(app: H3, host: HostState, route: string, respond: (event: H3Event) => Promise<Response>): void {
  const handler = defineHandler(async (event) => {
    const started = performance.now();
    const requestId = host.kit.deps.ids.next("req");
    let response: Response;
    try {
      response = await respond(event);
    } catch (error) {
      // swagger-ui-dist missing or unreadable: a 500 problem, the error to the host's hook only.
      try {
        host.onUnexpectedError?.(error, { requestId });
      } catch {
        // A failing hook never changes the answer.
      }
      response = problemResponse(toProblem(error).problem);
    }
    response.headers.set("x-request-id", requestId);
    response.headers.set("x-content-type-options", "nosniff");
    log(host, event, { requestId, status: response.status, started });
    return response;
  });
  app.get(route, handler);
  app.head(route, handler);
  app.all(
    route,
    defineHostHandler(host, async (_event, exchange) => methodNotAllowed(exchange.headers, ["GET"])),
  );
}

/** The page, its addresses relative to where it is served (so a mounted app works too). */
function pageResponse(pagePath: string): Response {
  const base = escapeHtml(pagePath.slice(0, -"/docs".length));
  const v = encodeURIComponent(assetVersion());
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>casekit API reference</title>
<link rel="stylesheet" href="${base}/docs/swagger-ui.css?v=${v}">
<link rel="icon" type="image/png" sizes="32x32" href="${base}/docs/favicon-32x32.png?v=${v}">
<link rel="icon" type="image/png" sizes="16x16" href="${base}/docs/favicon-16x16.png?v=${v}">
</head>
<body>
<div id="swagger-ui" data-openapi-url="${base}/openapi.json"></div>
<script src="${base}/docs/swagger-ui-bundle.js?v=${v}"></script>
<script src="${base}/docs/init.js?v=${v}"></script>
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

/** The host's access-log line for one answer (no key is ever involved here). */
function log(host: HostState, event: H3Event, answer: { requestId: string; status: number; started: number }): void {
  try {
    host.logger?.({
      msg: "request",
      time: host.kit.clock.now().toISOString(),
      requestId: answer.requestId,
      method: event.req.method,
      path: event.url.pathname,
      status: answer.status,
      durationMs: Math.round((performance.now() - answer.started) * 100) / 100,
    });
  } catch {
    // A failing logger never turns an answer into a failure.
  }
}

const require = createRequire(import.meta.url);
let swaggerDirectory: string | undefined;
const fileCache = new Map<string, Promise<Buffer>>();

/** swagger-ui-dist's folder, wherever the package manager put it. */
function swaggerDir(): string {
  return (swaggerDirectory ??= path.dirname(require.resolve("swagger-ui-dist/package.json")));
}

/** Read once, then kept: a few MB at most, asked for by every browser that opens the page. */
function swaggerFile(name: string): Promise<Buffer> {
  let file = fileCache.get(name);
  if (!file) {
    file = readFile(path.join(swaggerDir(), name));
    file.catch(() => fileCache.delete(name));
    fileCache.set(name, file);
  }
  return file;
}

let cachedVersion: string | undefined;

/** Changes whenever casekit or Swagger UI does, so long-cached assets are never stale. */
function assetVersion(): string {
  return (cachedVersion ??= `${version}-${(JSON.parse(readFileSync(path.join(swaggerDir(), "package.json"), "utf8")) as { version: string }).version}`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
