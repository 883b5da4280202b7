import type { IncomingMessage } from "node:http";
import type { H3Event } from "h3";

/**
 * Where clients reach the app: the path prefix in front of casekit's own paths (`/api/v1`,
 * `/account`, `/livez`…), as the client sends it. Everything that names an absolute path back to
 * the client (the OpenAPI documents' `servers`, the session cookie's `Path`, the reference page's
 * addresses) starts from it, so a mounted app points at itself and not at the host's root.
 *
 * Decided in this order, the first that applies:
 *
 * 1. `basePath` given to createCaseKitApp / mountCaseKit / a framework helper: always wins (the
 *    host's own proxy may strip or add a prefix nobody in the process can see).
 * 2. What the mount knows, per request:
 *    - a framework helper (casekit/express, casekit/hono, casekit/fastify) records the prefix it
 *      stripped for each request (`recordMountPrefix`);
 *    - Express strips its mount path into `req.baseUrl` (documented Express behaviour), so even a
 *      plain `app.use(prefix, toNodeHandler(createCaseKitApp(kit)))` is derived;
 *    - h3's `mount` (mountCaseKit) does not strip: the prefix stays in the routed path, and
 *      mountCaseKit tells the app where its own paths start (`mountedAt`).
 * 3. Nothing: the app is at the root.
 */
export interface BasePathOptions {
  /** The explicit prefix; wins over anything derived. */
  basePath?: string | undefined;
  /** mountCaseKit's prefix: part of every routed path, in front of casekit's own paths. */
  mountedAt?: string | undefined;
}

/** Prefixes recorded by the framework helpers, by the request object they saw (web or Node). */
const recordedPrefixes = new WeakMap<object, string>();

/** A framework helper stripped `prefix` off this request before handing it to the app. */
export function recordMountPrefix(request: Request | IncomingMessage, prefix: string): void {
  recordedPrefixes.set(request, prefix);
}

/**
 * `/security`, `/a/b` or "" (the root). A trailing slash is dropped; anything that is not an
 * absolute path of plain segments is refused when the app is built, not on the first request.
 */
export function normalizeBasePath(value: string, name = "basePath"): string {
  const trimmed = value.replace(/\/+$/, "");
  if (trimmed === "") return "";
  if (!trimmed.startsWith("/") || /[?#\\\s]|\/\/|(^|\/)\.\.?(\/|$)/.test(trimmed)) {
    throw new TypeError(`${name} must be an absolute path such as "/security" (got ${JSON.stringify(value)})`);
  }
  return trimmed;
}

/** The function every handler asks: the client-side prefix of this request. */
export function createBasePathResolver(options: BasePathOptions): (event: H3Event) => string {
  const mountedAt = options.mountedAt === undefined ? "" : normalizeBasePath(options.mountedAt, "prefix");
  if (options.basePath !== undefined) {
    const fixed = normalizeBasePath(options.basePath);
    return () => fixed;
  }
  return (event) => outerPrefix(event) + mountedAt;
}

/** The prefix stripped before the request reached h3: by one of our helpers, or by Express. */
function outerPrefix(event: H3Event): string {
  const recorded = recordedPrefixes.get(event.req);
  if (recorded !== undefined) return recorded;
  const node = (event.req as { runtime?: { node?: { req?: IncomingMessage & { baseUrl?: unknown } } } }).runtime?.node?.req;
  if (!node) return "";
  const fromHelper = recordedPrefixes.get(node);
  if (fromHelper !== undefined) return fromHelper;
  return typeof node.baseUrl === "string" ? node.baseUrl.replace(/\/+$/, "") : "";
}

/**
 * Splits `pathname` after as many segments as the framework's route `pattern` has before its
 * trailing wildcard (`/security/*` → one, `/:tenant/casekit/*` → two): the prefix as the client
 * sent it (parameters filled in), and the rest, casekit's own path ("/" when nothing is left).
 */
export function splitAtPattern(pathname: string, pattern: string): { prefix: string; rest: string } {
  const segments = pattern.split("/").filter((segment) => segment !== "" && segment !== "*").length;
  let end = 0;
  for (let i = 0; i < segments; i++) {
    const next = pathname.indexOf("/", end + 1);
    end = next === -1 ? pathname.length : next;
  }
  return { prefix: pathname.slice(0, end), rest: pathname.slice(end) || "/" };
}
