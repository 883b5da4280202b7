import { H3 } from "h3";
import type { H3Event } from "h3";
import { CaseKitError } from "../core/index.js";
import type { CaseKit, Principal } from "../core/index.js";
import { buildAccountOpenApiDocument, registerAccountRoutes } from "./account.js";
import { registerAccountPage } from "./account-page.js";
import { createBasePathResolver } from "./base-path.js";
import { defaultBodyLimitBytes, readJsonBody } from "./body.js";
import { registerDocsPage } from "./docs.js";
import { defineHostHandler } from "./handle.js";
import type { AccessLogLine, HostState } from "./handle.js";
import { createRequestAuthenticator } from "./identity.js";
import type { IdentifyRequest } from "./identity.js";
import { buildOpenApiDocument } from "./openapi.js";
import type { OpenApiDocument } from "./openapi.js";
import { chargeBulkRows } from "./rate-limit.js";
import { auditingDenials } from "./audit-denial.js";
import { methodNotAllowed, methodsByPath, paramsOf, queryOf } from "./request.js";
import { apiBasePath, routeTemplate } from "./route.js";
import type { ApiRoute, RouteInput } from "./route.js";
import { registerMetricsRoute } from "./metrics.js";
import type { MetricsEndpoint } from "./metrics.js";
import type { RequestMetrics } from "./http-metrics.js";
import type { RequestTracer } from "./tracing.js";
import { apiRoutes } from "./routes/index.js";

export interface CaseKitAppOptions {
  /** Largest request body read, in bytes; larger is 413. Default 1 MiB. */
  bodyLimitBytes?: number;
  /**
   * Take the client address (recorded in audit entries, never used for decisions) from the first
   * `X-Forwarded-For` entry. Only behind a proxy you run that overwrites that header. Default false.
   */
  trustProxy?: boolean;
  /** Receives one structured access-log line per request. */
  logger?: (line: AccessLogLine) => void;
  /**
   * Receives the raw error behind every 500, for your error tracker. The response and the access
   * log only say `internal_error`; what you do with the error (which may hold SQL or paths) is
   * yours to keep private.
   */
  onUnexpectedError?: (error: unknown, context: { requestId: string }) => void;
  /**
   * Answer every path the app does not know with a 404 problem (default true). `mountCaseKit`
   * turns it off so the host app keeps its own not-found handling outside the prefix.
   */
  handleUnknownPaths?: boolean;
  /**
   * Mark the account area's session cookie `Secure` on every response. Without it the cookie is
   * Secure when the request came over https (or, with `trustProxy`, `X-Forwarded-Proto: https`).
   * Turn it on whenever clients reach the app over https through something that does not say so.
   */
  secureCookies?: boolean;
  /**
   * Bring your own identity: your application says who the caller is (from its own session,
   * gateway header…), and casekit API keys are not accepted; `kit.principalFor` then applies every
   * rule a key would meet (the user exists and is active in that organization, role caps scopes,
   * clearance capped, tenant, TLP and policy checks in every service). Answering undefined is 401
   * `missing_credentials`; throwing is 401 too (see identity.ts). Rate limits count per user. The
   * account area (casekit's own password sign-in and key management) is not served in this mode.
   */
  identify?: IdentifyRequest;
  /**
   * With `identify`: fall back to casekit API keys when `identify` answers undefined (say, your UI
   * through sessions and integrations through keys). The account area is served again. Default false.
   */
  acceptApiKeys?: boolean;
  /**
   * The path prefix clients reach the app under (`/security`), for everything that names an
   * absolute path back to them: the OpenAPI documents' `servers`, the session cookie's `Path`,
   * the reference page. Derived when the mount is known (mountCaseKit's prefix, Express's
   * `req.baseUrl`, the casekit/express, casekit/hono and casekit/fastify helpers); set it when
   * something the process cannot see (a proxy) adds or strips a prefix. Given, it always wins.
   */
  basePath?: string;
  /**
   * Counts and times every request by method, route template and status, and counts rate-limit
   * refusals: `createHostMetrics(kit).requests` records into a prom-client registry (what
   * `casekit serve` does), or bring your own implementation for another metrics library.
   */
  metrics?: RequestMetrics;
  /** Also answer `GET /metrics` with the registry's Prometheus text, for the token's bearer or local clients only (see metrics.ts). */
  metricsEndpoint?: MetricsEndpoint;
  /** Wraps every request in a trace span: `await loadOpenTelemetryTracer()` (see tracing.ts). */
  tracer?: RequestTracer;
  /**
   * Abort it when the host begins to shut down, before draining: open event streams then end
   * cleanly (their clients reconnect elsewhere and resume) instead of holding the drain until its
   * deadline. Streamed exports are left to finish. `casekit serve` does this on SIGTERM/SIGINT.
   */
  shutdownSignal?: AbortSignal;
}

/** Options only mountCaseKit sets: where the mounted app's own paths start in the routed path. */
interface MountOptions {
  mountedAt?: string;
}

let defaultDocument: OpenApiDocument | undefined;
let defaultAccountDocument: OpenApiDocument | undefined;

/**
 * The casekit HTTP API as an h3 app: `/api/v1/…` (every route requires a key), the account area
 * at `/account/…` (a person's session: sign-in and their own keys, see account.ts), plus
 * unversioned `/livez` and `/readyz` for orchestrators. Use `app.fetch(request)` in-process, `toNodeHandler(app)`
 * from h3 for `node:http`, or `mountCaseKit` to put it inside another h3 app (not a bare
 * `parent.mount`: h3 keeps the prefix in the routed path without telling the app where it ends,
 * so only mountCaseKit makes it the base path).
 */
export function createCaseKitApp(kit: CaseKit, options: CaseKitAppOptions = {}): H3 {
  return buildApp(kit, options, {});
}

function buildApp(kit: CaseKit, options: CaseKitAppOptions, mount: MountOptions): H3 {
  const authenticateRequest = createRequestAuthenticator(options);
  const host: HostState = {
    kit,
    bodyLimitBytes: options.bodyLimitBytes ?? defaultBodyLimitBytes,
    trustProxy: options.trustProxy ?? false,
    logger: options.logger,
    onUnexpectedError: options.onUnexpectedError,
    metrics: options.metrics,
    tracer: options.tracer,
    openapi: (defaultDocument ??= buildOpenApiDocument()),
    accountOpenapi: (defaultAccountDocument ??= buildAccountOpenApiDocument()),
    secureCookies: options.secureCookies ?? false,
    authenticate: (event, exchange) => authenticateRequest(event, host, exchange),
    basePathOf: createBasePathResolver({ basePath: options.basePath, mountedAt: mount.mountedAt }),
    shutdown: options.shutdownSignal,
  };
  // A path with malformed percent-encoding reaches our routes and gets a problem+json answer
  // instead of h3's own plain-JSON 400 (route parameters are decoded defensively, see paramsOf).
  const app = new H3({ silent: true, allowMalformedURL: true });

  for (const route of apiRoutes) {
    const handler = apiHandler(host, route, routeTemplate(apiBasePath + route.path));
    app.on(route.method, apiBasePath + route.path, handler);
    // h3 answers HEAD with the GET route only when nothing else matches; the 405 fallback below would.
    if (route.method === "GET") app.on("HEAD", apiBasePath + route.path, handler);
  }
  registerMethodFallbacks(app, host, apiRoutes);
  // The API reference page (server/docs.ts): public, like the document it renders.
  registerDocsPage(app, host);

  // Unknown API routes answer 404 only to an authenticated caller (401 first), so the API
  // surface cannot be probed anonymously.
  const unknownApiRoute = defineHostHandler(
    host,
    async (event, exchange) => {
      exchange.principal = await host.authenticate(event, exchange);
      throw new CaseKitError("route_not_found", "No such endpoint in API v1");
    },
    { route: `${apiBasePath}/**` },
  );
  app.all(apiBasePath, unknownApiRoute);
  app.all(`${apiBasePath}/**`, unknownApiRoute);

  // The account area signs people in with casekit passwords to manage casekit keys: no use when
  // the host's identity replaces keys. Its page (account-page.ts) goes with it.
  if (!options.identify || options.acceptApiKeys) {
    registerAccountRoutes(app, host);
    registerAccountPage(app, host);
  }

  // Orchestrator probes: no key, no detail, nothing about the data.
  const probes = {
    "/livez": defineHostHandler(host, async () => ({ status: "ok" }), { route: "/livez" }),
    "/readyz": defineHostHandler(
      host,
      async () => {
        try {
          await kit.storage.ping();
        } catch {
          throw new CaseKitError("unavailable", "Not ready");
        }
        return { status: "ok" };
      },
      { route: "/readyz" },
    ),
  };
  for (const [path, handler] of Object.entries(probes)) {
    app.get(path, handler);
    app.head(path, handler);
    app.all(
      path,
      defineHostHandler(host, async (_event, exchange) => methodNotAllowed(exchange.headers, ["GET"]), { route: path }),
    );
  }
  if (options.metricsEndpoint) registerMetricsRoute(app, host, options.metricsEndpoint);

  if (options.handleUnknownPaths ?? true) {
    app.all(
      "/**",
      defineHostHandler(
        host,
        async () => {
          throw new CaseKitError("route_not_found", "No such endpoint");
        },
        { route: "/**" },
      ),
    );
  }
  return app;
}

/**
 * Mounts the casekit API into an existing h3 app under `prefix` (e.g. `/casekit` gives
 * `/casekit/api/v1/…`, `/casekit/livez`, `/casekit/readyz`). Uses h3's own `app.mount`; the
 * casekit app has no global middleware, so its routes join the parent's router as they are.
 * `basePath` defaults to the prefix (plus whatever prefix an outer mount stripped).
 */
export function mountCaseKit(parent: H3, prefix: string, kit: CaseKit, options: Omit<CaseKitAppOptions, "handleUnknownPaths"> = {}): H3 {
  return parent.mount(prefix, buildApp(kit, { ...options, handleUnknownPaths: false }, { mountedAt: prefix }));
}

/**
 * Authenticate, read the body if the route has one, call the core once, charge a bulk answer's
 * rows to the key (see chargeBulkRows), return the value.
 */
function apiHandler(host: HostState, route: ApiRoute, template: string) {
  return defineHostHandler(host, async (event, exchange) => {
    // A public route (the OpenAPI document) needs no key: credentials sent along are not even read.
    if (route.public) return route.handle(await routeInput(host, route, event, undefined));
    // Authenticated before the body is read: a request without a valid key costs no body.
    const principal = await host.authenticate(event, exchange);
    exchange.principal = principal;
    const value = await auditingDenials(host.kit, principal, route.operationId, async () => route.handle(await routeInput(host, route, event, principal)));
    await chargeBulkRows(host.kit, principal, value, exchange.headers);
    return value;
  }, { route: template });
}

/** What a route's handler is given besides the principal; reads (and size-limits) the body. */
/**
 * What a route handler gets, the principal in the literal (undefined for a public route): V8 adds
 * a member to a spread's copy slowly, and this runs on every request.
 */
async function routeInput<P extends Principal | undefined>(host: HostState, route: ApiRoute, event: H3Event, principal: P): Promise<Omit<RouteInput, "principal"> & { principal: P }> {
  return {
    kit: host.kit,
    principal,
    params: paramsOf(event),
    query: queryOf(event),
    body: route.body ? await readJsonBody(event.req, host.bodyLimitBytes) : undefined,
    url: event.url,
    basePath: host.basePathOf(event),
    openapi: host.openapi,
  };
}

/** A known path with a method it does not serve: 405 with `Allow`, after authentication. */
function registerMethodFallbacks(app: H3, host: HostState, routes: readonly ApiRoute[]): void {
  for (const [path, methods] of methodsByPath(routes)) {
    app.all(
      apiBasePath + path,
      defineHostHandler(
        host,
        async (event, exchange) => {
          exchange.principal = await host.authenticate(event, exchange);
          return methodNotAllowed(exchange.headers, methods);
        },
        { route: routeTemplate(apiBasePath + path) },
      ),
    );
  }
}
