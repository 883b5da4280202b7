import { defineHandler } from "h3";
import type { EventHandler, H3Event } from "h3";
import { isCaseKitError } from "../core/index.js";
import type { CaseKit, ErrorCode, Principal } from "../core/index.js";
import { bufferBody, leavesBodyUnread } from "./body.js";
import { AnswerHeaders, textAnswer } from "./answer.js";
import { answerJson } from "./answer-json.js";
import { toProblem, writeProblem } from "./problem.js";
import { StatusAnswer, StreamedAnswer } from "./route.js";
import { streamResponse } from "./streaming/stream-response.js";
import type { Problem } from "./problem.js";
import type { RequestMetrics } from "./http-metrics.js";
import type { RequestTracer } from "./tracing.js";

/** One structured line per request. Never headers, query strings or bodies. */
export interface AccessLogLine {
  msg: "request";
  time: string;
  requestId: string;
  method: string;
  /** The route template that answered (`/api/v1/cases/{id}`; `/**` for an unknown path). */
  route: string;
  /** The path without its query string. */
  path: string;
  status: number;
  durationMs: number;
  keyId?: string;
  /** The account-area session's id (`ses_…`; never the session token). */
  sessionId?: string;
  organizationId?: string;
  /** The problem code of an error response. */
  code?: ErrorCode;
  /** For an unexpected error (500): the error's class name, e.g. `TypeError`. Never its message. */
  errorName?: string;
}

/** What every handler of one app shares. */
export interface HostState {
  kit: CaseKit;
  bodyLimitBytes: number;
  trustProxy: boolean;
  logger: ((line: AccessLogLine) => void) | undefined;
  onUnexpectedError: ((error: unknown, context: { requestId: string }) => void) | undefined;
  /** Counts and times every request by route and status (server/http-metrics.ts). */
  metrics: RequestMetrics | undefined;
  /** Wraps every request in a trace span (server/tracing.ts). */
  tracer: RequestTracer | undefined;
  openapi: Readonly<Record<string, unknown>>;
  /** The account area's OpenAPI document, built at start-up. */
  accountOpenapi: Readonly<Record<string, unknown>>;
  /** Mark the session cookie Secure on every response, not only on https requests. */
  secureCookies: boolean;
  /** Turns an API request into a principal: casekit keys, or the host's identity (identity.ts). */
  authenticate(event: H3Event, exchange: Exchange): Promise<Principal>;
  /** The prefix clients reach this app under ("" at the root; see base-path.ts). */
  basePathOf(event: H3Event): string;
  /** Aborted when the host shuts down: open event streams end cleanly (CaseKitAppOptions.shutdownSignal). */
  shutdown: AbortSignal | undefined;
}

/** The request's bookkeeping, filled in as the work goes. */
export interface Exchange {
  requestId: string;
  principal?: Principal;
  /** The account-area session the request was authenticated by. */
  sessionId?: string;
  /** Headers to add to the response, success or error (e.g. `Allow` on a 405). */
  headers: AnswerHeaders;
}

export interface HostHandlerOptions {
  /**
   * The route template the handler serves, as registered (`/api/v1/cases/{id}`; a catch-all's
   * pattern, `/**`, for paths nobody serves): the access line's `route`, the metrics' and the
   * trace's label. Never the request's own path, so the labels stay a bounded set.
   */
  route: string;
  /** The WWW-Authenticate challenge of a 401; the API's Bearer challenge by default. */
  challenge?: (problem: Problem) => string;
}

/**
 * Wraps one piece of work into an h3 handler that owns the whole exchange: a fresh request id
 * (`req_…`, never taken from the client, so nobody can forge ids into audit entries), the body
 * limit before anything else (413 on every route, keyed or not; see bufferBody), the work's
 * value as a 200 JSON response (or, when the work answers a `Response` of its own, a page or
 * Prometheus text, that response) or its error as problem details, security headers, one access
 * log line, the request's metrics and its trace span. It always returns a Response, so it behaves
 * the same standalone and mounted: on Node srvx's FastResponse, written to the socket without web
 * streams (see answer.ts).
 */
export function defineHostHandler(
  host: HostState,
  work: (event: H3Event, exchange: Exchange) => Promise<unknown>,
  options: HostHandlerOptions,
): EventHandler {
  const { route } = options;
  // Made once per handler: the request path only looks the status up in it (see RequestMetrics).
  const record = host.metrics?.forRoute(route);
  const answer = async (event: H3Event): Promise<Response> => {
    const started = performance.now();
    const exchange: Exchange = { requestId: host.kit.deps.ids.next("req"), headers: new AnswerHeaders() };
    let status: number;
    let body: string | undefined;
    let own: Response | undefined;
    let code: ErrorCode | undefined;
    let errorName: string | undefined;
    try {
      // Before routing, credentials or anything else: no route reads past the body limit.
      await bufferBody(event.req, host.bodyLimitBytes);
      const value = await work(event, exchange);
      if (value instanceof StreamedAnswer) {
        // Resolves with the first chunk in hand: a failure before it is answered below as a problem.
        // The access line and metrics then record the status and the time to the first chunk.
        own = await streamResponse(value.body, {
          request: event.req,
          url: event.url,
          headers: exchange.headers,
          shutdown: host.shutdown,
          onError: (error) => safely(() => host.onUnexpectedError?.(error, { requestId: exchange.requestId })),
        });
        status = own.status;
      } else if (value instanceof Response) {
        own = value;
        status = value.status;
      } else {
        const answer = value instanceof StatusAnswer ? value : new StatusAnswer(200, value);
        status = answer.status;
        body = answerJson(answer.value);
        exchange.headers.set("content-type", "application/json; charset=utf-8");
      }
    } catch (error) {
      const { problem, unexpected } = toProblem(error);
      code = problem.code;
      if (unexpected) {
        errorName = error instanceof Error ? error.name : typeof error;
        safely(() => host.onUnexpectedError?.(error, { requestId: exchange.requestId }));
      }
      if (isCaseKitError(error) && error.code === "rate_limited") {
        if (error.retryAfterSeconds !== undefined) exchange.headers.set("retry-after", String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
        const refusedBy = error.refusedBy;
        if (refusedBy) safely(() => host.metrics?.refused(refusedBy));
      }
      status = problem.status;
      body = writeProblem(problem, exchange.headers, options.challenge);
    }
    exchange.headers.set("x-request-id", exchange.requestId);
    // A response of the work's own may say how long it may be kept (a page's assets).
    if (!own?.headers.has("cache-control")) exchange.headers.set("cache-control", "no-store");
    exchange.headers.set("x-content-type-options", "nosniff");
    if (leavesBodyUnread(event.req)) exchange.headers.set("connection", "close");

    const seconds = (performance.now() - started) / 1000;
    if (record) safely(() => record(event.req.method, status, seconds));
    if (host.logger) {
      const line: AccessLogLine = {
        msg: "request",
        time: host.kit.clock.now().toISOString(),
        requestId: exchange.requestId,
        method: event.req.method,
        route,
        path: event.url.pathname,
        status,
        durationMs: Math.round(seconds * 100_000) / 100,
      };
      // Added in place, in this order: no object spread per optional field (40 -> 10 ns a line in a loop).
      if (exchange.principal?.keyId) line.keyId = exchange.principal.keyId;
      if (exchange.sessionId) line.sessionId = exchange.sessionId;
      if (exchange.principal) line.organizationId = exchange.principal.organizationId;
      if (code) line.code = code;
      if (errorName) line.errorName = errorName;
      safely(() => host.logger?.(line));
    }
    if (own) {
      for (const [name, value] of exchange.headers.pairs()) own.headers.set(name, value);
      return own;
    }
    return textAnswer(event.req, status, body, exchange.headers);
  };
  const tracer = host.tracer;
  return defineHandler(tracer ? (event) => tracer.trace(event.req, route, () => answer(event)) : answer);
}

/** A failing logger or error hook must never turn an answer into a failure. */
function safely(run: () => void): void {
  try {
    run();
  } catch {
    // Deliberately ignored.
  }
}
