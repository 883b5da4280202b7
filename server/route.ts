import type { z } from "zod";
import type { CaseKit, Principal, Scope } from "../core/index.js";
import type { StreamBody } from "./streaming/stream-body.js";

/** Every API route lives under this base (spec section 9). */
export const apiBasePath = "/api/v1";

export type ApiMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a route handler receives. It validates nothing: the core does. */
export interface RouteInput {
  kit: CaseKit;
  principal: Principal;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  /** Query parameters as a plain object; a repeated parameter becomes an array. */
  query: Record<string, string | string[]>;
  /** The parsed JSON body for routes that declare `body`; undefined otherwise. */
  body: unknown;
  /** The request URL as routed (including any mount prefix). */
  url: URL;
  /** The prefix clients reach the app under, "" at the root: the API is at `basePath + apiBasePath`. */
  basePath: string;
  /** The OpenAPI document of this app, built at start-up. */
  openapi: Readonly<Record<string, unknown>>;
}

/**
 * What the OpenAPI document needs to know about one operation. API routes and account routes
 * both extend it, so every operation the app serves is documented from the row that serves it.
 */
export interface RouteDoc {
  method: ApiMethod;
  /** Path under the document's server, rou3 syntax (`/cases/:id`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** The scope the core demands. Documentation only: the core, not the host, decides access. */
  scope?: Scope;
  /**
   * Instead of `scope`, for an operation on a record whose parent decides the scope (a comment by
   * id): the parent kind's scope, so one of these, and which one only the record tells. Documentation only.
   */
  parentScopes?: readonly Scope[];
  /** Scopes the core demands besides `scope` (all of them). Documentation only. */
  alsoScopes?: readonly Scope[];
  /** JSON body schema: the route reads a body, and the document describes it. */
  body?: z.ZodType;
  /** Query schema: documents the query parameters. */
  query?: z.ZodObject;
  /** The 200 body; for a streamed route (`stream`), one record of it (an NDJSON line, an event's data). */
  response: z.ZodType;
  /**
   * The route answers `streamed(…)`: NDJSON lines or Server-Sent Events, each record shaped like
   * `response`. Documents the content type; the handler's value decides what is sent.
   */
  stream?: "ndjson" | "sse";
  /**
   * Success statuses besides 200 the route may answer with the same body shape (a handler picks
   * one by returning `withStatus(…)`), e.g. 201 for a record created.
   */
  statuses?: readonly number[];
  /**
   * Error statuses beyond the derived ones. Derived: 401 and 500 always; 400, 413 and 415 with a
   * body; 400 with a query; 403 with a scope; 404 with a path parameter.
   */
  errors?: readonly number[];
}

/**
 * One row of the route table. The same row registers the h3 route and produces the OpenAPI
 * operation, so the two cannot drift apart.
 */
export type ApiRoute = KeyedApiRoute | PublicApiRoute;

/** A route that needs an API key: the host authenticates (and meters) before `handle`. */
export interface KeyedApiRoute extends RouteDoc {
  public?: false;
  handle(input: RouteInput): unknown;
}

/**
 * A route anyone may call without a key, for what describes the API itself and holds no tenant
 * data (the OpenAPI document). Credentials sent along are ignored; nothing is metered.
 */
export interface PublicApiRoute extends RouteDoc {
  public: true;
  handle(input: Omit<RouteInput, "principal">): unknown;
}

/** A handler's value answered with a success status other than 200 (see RouteDoc.statuses). */
export class StatusAnswer {
  constructor(
    readonly status: number,
    readonly value: unknown,
  ) {}
}

export function withStatus(status: number, value: unknown): StatusAnswer {
  return new StatusAnswer(status, value);
}

/** A handler's value answered as a body written while it is produced (server/streaming/). */
export class StreamedAnswer {
  constructor(readonly body: StreamBody) {}
}

export function streamed(body: StreamBody): StreamedAnswer {
  return new StreamedAnswer(body);
}

/** Identity helper that type-checks a route row where it is written. */
export function defineApiRoute(route: ApiRoute): ApiRoute {
  return route;
}

/** A registered path as a metrics and log label: `/api/v1/cases/:id` is `/api/v1/cases/{id}`, as in the OpenAPI document. */
export function routeTemplate(path: string): string {
  return path.replace(/:(\w+)/g, "{$1}");
}
