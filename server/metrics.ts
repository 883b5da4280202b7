/**
 * `GET /metrics` of `casekit serve`: Prometheus text exposition (prom-client) of the process's
 * default metrics (CPU, memory, event-loop lag, GC, handles) and `casekit_sqlite_wal_bytes`, the
 * size of the SQLite WAL file, read from the storage when scraped. It lives beside the API, not
 * under /api/v1: it is the operator's, not a tenant's, and needs no API key.
 *
 * Who gets it:
 * - with a metrics token (CASEKIT_METRICS_TOKEN), whoever sends `Authorization: Bearer <token>`
 *   (compared in constant time); anyone else gets 401 problem+json;
 * - without one, only a client on this machine: the connection comes from a loopback address and
 *   carries no Forwarded / X-Forwarded-For / X-Real-IP header (a reverse proxy on this machine
 *   would otherwise make every client look local). Anyone else gets the 404 problem an unknown
 *   path gets, so the endpoint is not advertised.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { defineHandler, getRequestIP } from "h3";
import type { H3, H3Event } from "h3";
import ipaddr from "ipaddr.js";
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { CaseKit, ErrorCode, Storage } from "../core/index.js";
import type { AccessLogLine } from "./handle.js";
import { problemOf, problemResponse, toProblem } from "./problem.js";

export const metricsPath = "/metrics";

/** The process's default metrics, and the storage's figures where it reports them. */
export function createMetricsRegistry(storage: Storage): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Only where there is a WAL file to measure (SQLite on a file): no gauge stuck at 0 elsewhere.
  if (storage.stats?.().walBytes !== undefined) {
    new Gauge({
      name: "casekit_sqlite_wal_bytes",
      help: "Size of the SQLite write-ahead log file in bytes (checkpointed back to empty past CASEKIT_SQLITE_WAL_LIMIT)",
      registers: [registry],
      collect() {
        this.set(storage.stats?.().walBytes ?? 0);
      },
    });
  }
  return registry;
}

export interface MetricsRouteOptions {
  registry: Registry;
  /** The bearer token that opens the endpoint; without one, only local clients get it. */
  token: string | undefined;
  /** For request ids and the access log's clock. */
  kit: CaseKit;
  logger?: ((line: AccessLogLine) => void) | undefined;
}

/** Adds `GET /metrics` to the app (a static route: it wins over the app's catch-all 404). */
export function registerMetricsRoute(app: H3, options: MetricsRouteOptions): void {
  const allowed = options.token === undefined ? fromThisMachine : bearerOf(options.token);
  app.get(
    metricsPath,
    defineHandler(async (event) => {
      const started = performance.now();
      const requestId = options.kit.deps.ids.next("req");
      let response: Response;
      let code: ErrorCode | undefined;
      const refusal = allowed(event);
      if (refusal !== undefined) {
        code = refusal.code;
        response = problemResponse(problemOf(refusal.code, refusal.detail));
      } else {
        try {
          response = new Response(await options.registry.metrics(), { headers: { "content-type": options.registry.contentType } });
        } catch (error) {
          const { problem } = toProblem(error);
          code = problem.code;
          response = problemResponse(problem);
        }
      }
      response.headers.set("x-request-id", requestId);
      response.headers.set("cache-control", "no-store");
      response.headers.set("x-content-type-options", "nosniff");
      try {
        options.logger?.({
          msg: "request",
          time: options.kit.clock.now().toISOString(),
          requestId,
          method: event.req.method,
          path: event.url.pathname,
          status: response.status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
          ...(code ? { code } : {}),
        });
      } catch {
        // A failing logger never turns an answer into a failure.
      }
      return response;
    }),
  );
}

type Refusal = { code: ErrorCode; detail: string } | undefined;

const notHere: Refusal = { code: "route_not_found", detail: "No such endpoint" };

/** No token: a loopback peer that came through no proxy. */
function fromThisMachine(event: H3Event): Refusal {
  const headers = event.req.headers;
  if (headers.has("forwarded") || headers.has("x-forwarded-for") || headers.has("x-real-ip")) return notHere;
  // The connection's peer address, never a header.
  const ip = getRequestIP(event);
  if (ip === undefined || !ipaddr.isValid(ip)) return notHere;
  return ipaddr.process(ip).range() === "loopback" ? undefined : notHere;
}

/** With a token: `Authorization: Bearer <token>`, compared as SHA-256 digests in constant time. */
function bearerOf(token: string): (event: H3Event) => Refusal {
  const expected = digest(token);
  return (event) => {
    const match = /^Bearer +(\S+) *$/i.exec(event.req.headers.get("authorization") ?? "");
    if (!match) return { code: "missing_credentials", detail: "Send the metrics token: Authorization: Bearer <CASEKIT_METRICS_TOKEN>" };
    return timingSafeEqual(digest(match[1]!), expected) ? undefined : { code: "invalid_key", detail: "The metrics token is not valid" };
  };
}

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();
