import type { H3, H3Event } from "h3";
import { z } from "zod";
import {
  apiKeyCreateSchema,
  apiKeyCreatedSchema,
  apiKeyListQuerySchema,
  apiKeyListSchema,
  apiKeySchema,
  CaseKitError,
  keyGrantOptionsSchema,
  accountSlowDownAfter,
  isCaseKitError,
  signInFailureLimit,
  signInSchema,
  userSchema,
} from "../core/index.js";
import type { CaseKit, KeyStatusAction, Principal, RequestOrigin } from "../core/index.js";
import { originOf } from "./auth.js";
import { isJsonContentType, readJsonBody } from "./body.js";
import { defineHostHandler } from "./handle.js";
import type { HostState } from "./handle.js";
import { buildDocument } from "./openapi.js";
import type { OpenApiDocument } from "./openapi.js";
import type { Problem } from "./problem.js";
import { methodNotAllowed, methodsByPath, paramsOf, queryOf } from "./request.js";
import { routeTemplate } from "./route.js";
import type { RouteDoc } from "./route.js";

/**
 * The account area: where a person signs in with email and password and manages their own API
 * keys (spec section 5.3: "keys are created by a signed-in user under the account's API Keys
 * area"). It lives beside the API, at `/account`, and is authenticated by a session cookie
 * instead of a key.
 *
 * - The session token travels only in the `casekit_session` cookie: HttpOnly (no script reads
 *   it), SameSite=Strict (no other site's page sends it), Path=/account (the API never sees it),
 *   Secure on https. It is never in a body, a URL or a log line; the core stores only its hash.
 * - CSRF: sign-in answers a CSRF token in the body. Every request that changes state (POST,
 *   PATCH, DELETE other than sign-in) must send it back in `X-CSRF-Token`; the core compares it
 *   with the session's (403 `csrf_rejected`). A custom header cannot be sent cross-site without a
 *   CORS preflight, and this app serves no CORS, so a forged request fails twice over.
 * - Sign-in needs `Content-Type: application/json` (415 otherwise), which a cross-site form
 *   cannot send either, so nobody can be signed in to someone else's account behind their back.
 * - No, unknown, ended or expired session: 401 `invalid_session` with a Cookie challenge.
 */
export const accountBasePath = "/account";
export const sessionCookieName = "casekit_session";
export const csrfHeaderName = "X-CSRF-Token";

const challengeRealm = 'Cookie realm="casekit-account"';

/** What the session authenticated: a person, not a key. */
export type SessionPrincipal = Principal & { sessionId: string };

interface AccountInputBase {
  kit: CaseKit;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  /** The parsed JSON body for routes that declare `body`; undefined otherwise. */
  body: unknown;
  url: URL;
  /** The prefix clients reach the app under ("" at the root): the area is at `basePath + accountBasePath`. */
  basePath: string;
  origin: RequestOrigin;
  /** The account area's OpenAPI document. */
  openapi: Readonly<Record<string, unknown>>;
  /** Sets the session cookie (sign-in). */
  startSession(token: string, expiresAt: string): void;
  /** Tells the browser to forget the session cookie (sign-out). */
  endSession(): void;
}

/**
 * One row of the account route table. `session` says what the request must carry: nothing, a
 * session (reads), or a session and its CSRF token (everything that changes state).
 */
export type AccountRoute = RouteDoc &
  (
    | { session: "none"; handle(input: AccountInputBase): unknown }
    | { session: "read" | "write"; handle(input: AccountInputBase & { principal: SessionPrincipal; sessionToken: string }): unknown }
  );

export const signedInSchema = z
  .object({
    user: userSchema,
    csrfToken: z.string().meta({ description: `Send back in \`${csrfHeaderName}\` on every request that changes state. \`GET /account/session\` answers it again.` }),
    expiresAt: z.string().meta({ format: "date-time", description: "The session ends then, whatever happens" }),
  })
  .meta({ id: "AccountSignedIn" });

export const signedOutSchema = z.object({ signedOut: z.literal(true) }).meta({ id: "AccountSignedOut" });

const accountDocumentSchema = z
  .looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) })
  .meta({ id: "OpenApiDocument", description: "An OpenAPI 3.1 document: https://spec.openapis.org/oas/v3.1.0" });

const keyStatusActions: { action: KeyStatusAction; summary: string }[] = [
  { action: "suspend", summary: "Suspend one of my API keys" },
  { action: "resume", summary: "Resume one of my suspended API keys" },
  { action: "revoke", summary: "Revoke one of my API keys (final)" },
];

export const accountRoutes: readonly AccountRoute[] = [
  {
    method: "POST",
    path: "/sign-in",
    operationId: "signIn",
    tag: "Account",
    summary: "Sign in with email and password",
    description: [
      `Answers the user, a CSRF token and the session's end, and sets the session cookie \`${sessionCookieName}\` (HttpOnly, SameSite=Strict, Path=/account, Secure on https).`,
      "Needs `Content-Type: application/json`. A wrong email or password is 401 `invalid_credentials`, the same for both.",
      `After ${signInFailureLimit} failures for one email from one address, that address is refused for that email for 15 minutes; after ${accountSlowDownAfter} failures for one email from all addresses, the email is slowed down (one attempt per 20 s, except from addresses it signed in from lately). Either is 429 \`rate_limited\` with \`Retry-After\`.`,
    ].join(" "),
    session: "none",
    body: signInSchema,
    response: signedInSchema,
    errors: [429],
    handle: async ({ kit, body, origin, startSession }) => {
      // Guessing is throttled by the core, per (email, address) and per email: never per address alone.
      const { user, token, csrfToken, expiresAt } = await kit.account.signIn(body, origin);
      startSession(token, expiresAt);
      return { user, csrfToken, expiresAt };
    },
  },
  {
    method: "POST",
    path: "/sign-out",
    operationId: "signOut",
    tag: "Account",
    summary: "End the session",
    description: "The session is deleted on the server (the cookie stops working everywhere at once) and the browser is told to forget it.",
    session: "write",
    response: signedOutSchema,
    handle: async ({ kit, principal, endSession }) => {
      await kit.account.signOut(principal);
      endSession();
      return { signedOut: true };
    },
  },
  {
    method: "GET",
    path: "/session",
    operationId: "getMySession",
    tag: "Account",
    summary: "The current session: user, CSRF token and end",
    description: "For a page that starts with the session cookie alone (a reload, a second tab): the same answer as sign-in. Only same-origin script can read it.",
    session: "read",
    response: signedInSchema,
    handle: ({ kit, sessionToken }) => kit.account.session(sessionToken),
  },
  {
    method: "GET",
    path: "/me",
    operationId: "getMe",
    tag: "Account",
    summary: "The signed-in user",
    session: "read",
    response: userSchema,
    handle: ({ kit, principal }) => kit.account.me(principal),
  },
  {
    method: "GET",
    path: "/api-keys",
    operationId: "listMyApiKeys",
    tag: "Account",
    summary: "List my API keys",
    description: "Only the signed-in user's own keys, newest first. Never shows a secret or its hash.",
    session: "read",
    query: apiKeyListQuerySchema,
    response: apiKeyListSchema,
    handle: ({ kit, principal, query }) => kit.keys.list(principal, query),
  },
  {
    method: "POST",
    path: "/api-keys",
    operationId: "createMyApiKey",
    tag: "Account",
    summary: "Create an API key",
    description: [
      "The signed-in user owns the key. Answers the stored key and, this once, its secret in `key`.",
      "Scopes beyond the user's role are 403 `missing_scope`; a clearance above the user's is 403 `tlp_restricted`; what the organization's policy forbids is 403 `organization_restricted`.",
    ].join(" "),
    session: "write",
    body: apiKeyCreateSchema,
    response: apiKeyCreatedSchema,
    errors: [403],
    handle: ({ kit, principal, body }) => kit.keys.create(principal, body),
  },
  {
    method: "GET",
    path: "/api-key-options",
    operationId: "getMyApiKeyOptions",
    tag: "Account",
    summary: "What I may give a new API key",
    description: "The scopes I hold, the highest clearance, the tiers and the expiry rules the organization's policy and my own rights allow: creating a key with anything else is refused.",
    session: "read",
    response: keyGrantOptionsSchema,
    handle: ({ kit, principal }) => kit.keys.grantOptions(principal),
  },
  {
    method: "GET",
    path: "/api-keys/:id",
    operationId: "getMyApiKey",
    tag: "Account",
    summary: "Get one of my API keys",
    description: "404 for anybody else's key, as for an unknown id.",
    session: "read",
    response: apiKeySchema,
    handle: ({ kit, principal, params }) => kit.keys.get(principal, params.id ?? ""),
  },
  {
    method: "DELETE",
    path: "/api-keys/:id",
    operationId: "deleteMyApiKey",
    tag: "Account",
    summary: "Delete one of my API keys",
    description: "Answers the record as it was; the key answers 401 `invalid_key` from then on.",
    session: "write",
    response: apiKeySchema,
    handle: ({ kit, principal, params }) => kit.keys.delete(principal, params.id ?? ""),
  },
  ...keyStatusActions.map(
    ({ action, summary }): AccountRoute => ({
      method: "POST",
      path: `/api-keys/:id/${action}`,
      operationId: `${action}MyApiKey`,
      tag: "Account",
      summary,
      description: "A change the key's status does not allow is 409 `invalid_transition`.",
      session: "write",
      response: apiKeySchema,
      errors: [409],
      handle: ({ kit, principal, params }) => kit.keys.changeStatus(principal, params.id ?? "", action),
    }),
  ),
  {
    method: "GET",
    path: "/openapi.json",
    operationId: "getAccountOpenApiDocument",
    tag: "Meta",
    summary: "This area's OpenAPI 3.1 document",
    description: "Public, like the sign-in form it describes.",
    session: "none",
    response: accountDocumentSchema,
    handle: ({ openapi, basePath }) => ({ ...openapi, servers: [{ url: basePath + accountBasePath }] }),
  },
];

/** The account area's own OpenAPI document (its paths would collide with the API's `/api-keys`). */
export function buildAccountOpenApiDocument(): OpenApiDocument {
  return buildDocument({
    routes: accountRoutes,
    serverUrl: accountBasePath,
    title: "casekit account area",
    description: [
      "Where a person signs in with email and password and manages their own API keys. The API itself is at `/api/v1` and takes keys only.",
      `Sign in, then send the session cookie \`${sessionCookieName}\` (the browser does it) on every request, and the CSRF token from the sign-in answer in \`${csrfHeaderName}\` on every POST, PATCH and DELETE.`,
      "Errors are RFC 9457 problem details, as in the API.",
    ].join("\n\n"),
    securitySchemes: {
      sessionCookie: { type: "apiKey", in: "cookie", name: sessionCookieName, description: "Set by sign-in: HttpOnly, SameSite=Strict, Path=/account" },
      csrfToken: { type: "apiKey", in: "header", name: csrfHeaderName, description: "The csrfToken of the sign-in answer, on every request that changes state" },
    },
    security: [{ sessionCookie: [] }],
    operationSecurity: (route) => {
      const session = (route as AccountRoute).session;
      if (session === "none") return [];
      return session === "write" ? [{ sessionCookie: [], csrfToken: [] }] : undefined;
    },
    accessNote: (route) =>
      ({ none: "No session needed.", read: "Needs a session.", write: `Needs a session and its CSRF token in \`${csrfHeaderName}\`.` })[(route as AccountRoute).session],
    challengeDescription: `\`${challengeRealm}\`: sign in to get a session cookie`,
  });
}

/** Registers the account area at `/account` on the app. */
export function registerAccountRoutes(app: H3, host: HostState): void {
  for (const route of accountRoutes) {
    const handler = accountHandler(host, route, routeTemplate(accountBasePath + route.path));
    app.on(route.method, accountBasePath + route.path, handler);
    if (route.method === "GET") app.on("HEAD", accountBasePath + route.path, handler);
  }
  for (const [path, methods] of methodsByPath(accountRoutes)) {
    app.all(
      accountBasePath + path,
      defineHostHandler(host, async (_event, exchange) => methodNotAllowed(exchange.headers, methods), { route: routeTemplate(accountBasePath + path), challenge }),
    );
  }
}

function challenge(_problem: Problem): string {
  return challengeRealm;
}

function accountHandler(host: HostState, route: AccountRoute, template: string) {
  return defineHostHandler(
    host,
    async (event, exchange) => {
      const origin = originOf(event, exchange.requestId, host);
      const basePath = host.basePathOf(event);
      const cookie = cookieWriter(event, host, basePath + accountBasePath);
      const input: AccountInputBase = {
        kit: host.kit,
        params: paramsOf(event),
        query: queryOf(event),
        body: undefined,
        url: event.url,
        basePath,
        origin,
        openapi: host.accountOpenapi,
        startSession: (token, expiresAt) => {
          const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - host.kit.clock.now().getTime()) / 1000));
          exchange.headers.append("set-cookie", cookie(token, maxAge));
        },
        endSession: () => exchange.headers.append("set-cookie", cookie("", 0)),
      };

      if (route.session === "none") {
        if (route.body) {
          // Before anything else: a cross-site form cannot send a JSON content type.
          const contentType = event.req.headers.get("content-type");
          if (contentType === null || !isJsonContentType(contentType)) {
            throw new CaseKitError("unsupported_media_type", "Send the body as application/json (UTF-8)");
          }
          input.body = await readJsonBody(event.req, host.bodyLimitBytes);
        }
        return route.handle(input);
      }

      const token = readSessionCookie(event);
      let principal: SessionPrincipal;
      try {
        principal = await host.kit.account.authenticateSession(token, {
          csrfToken: route.session === "write" ? (event.req.headers.get(csrfHeaderName) ?? undefined) : undefined,
          requireCsrf: route.session === "write",
          origin,
        });
      } catch (error) {
        // A cookie that names no live session is useless: tell the browser to drop it.
        if (isCaseKitError(error) && error.code === "invalid_session") input.endSession();
        throw error;
      }
      exchange.principal = principal;
      exchange.sessionId = principal.sessionId;
      if (route.body) input.body = await readJsonBody(event.req, host.bodyLimitBytes);
      return route.handle({ ...input, principal, sessionToken: token });
    },
    { route: template, challenge },
  );
}

/**
 * The session token from the Cookie header. Several `casekit_session` cookies (one planted by a
 * sibling subdomain, say) are refused rather than guessed between.
 */
function readSessionCookie(event: H3Event): string {
  const header = event.req.headers.get("cookie") ?? "";
  const values: string[] = [];
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    if (part.slice(0, at).trim() === sessionCookieName) values.push(part.slice(at + 1).trim());
  }
  if (values.length === 0 || values[0] === "") throw new CaseKitError("invalid_session", "Sign in first: no session cookie was sent");
  if (values.length > 1) throw new CaseKitError("invalid_session", "More than one session cookie was sent; sign in again");
  return values[0]!;
}

/**
 * Writes the session cookie for the area where clients reach it (`<basePath>/account`: a mounted
 * app's area, wherever the prefix was stripped), Secure when the request came over https or the
 * host says so.
 */
function cookieWriter(event: H3Event, host: HostState, path: string): (value: string, maxAge: number) => string {
  return (value, maxAge) => {
    const forwardedProto = host.trustProxy ? event.req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() : undefined;
    const secure = host.secureCookies || event.url.protocol === "https:" || forwardedProto === "https";
    return [`${sessionCookieName}=${value}`, `Path=${path}`, `Max-Age=${maxAge}`, "HttpOnly", "SameSite=Strict", ...(secure ? ["Secure"] : [])].join("; ");
  };
}
