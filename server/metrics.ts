/**
 * `GET /metrics` of `casekit serve`: Prometheus text exposition (prom-client). It lives beside
 * the API, not under /api/v1: it is the operator's, not a tenant's, and needs no API key.
 *
 * Families (README "Operations" lists them):
 * - requests by method, route template and status, their latency, rate-limit refusals
 *   (http-metrics.ts, recorded by every host handler);
 * - webhook attempts by outcome (told by the dispatcher), audit events handed to syslog sinks and
 *   their failed attempts, pending deliveries and the outbox lag
 *   (the age of the oldest event not yet fanned out), read from the database when scraped;
 * - the storage's own figures where it has them: the SQLite WAL size and reader connections, the
 *   PostgreSQL pool's connections and waiting requests;
 * - prom-client's default process metrics (CPU, memory, event-loop lag, GC, handles).
 * Nothing that needs the database is computed on the request path: only on a scrape.
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
import { getRequestIP } from "h3";
import type { H3, H3Event } from "h3";
import ipaddr from "ipaddr.js";
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import { CaseKitError } from "../core/index.js";
import type { CaseKit, DeliveryBacklog, ErrorCode } from "../core/index.js";
import type { AttemptOutcome } from "../core/webhooks/schedule.js";
import { defineHostHandler } from "./handle.js";
import type { HostState } from "./handle.js";
import { createRequestMetrics } from "./http-metrics.js";
import type { RequestMetrics } from "./http-metrics.js";

export const metricsPath = "/metrics";

/** Everything `casekit serve` measures, on one registry. */
export interface HostMetrics {
  registry: Registry;
  /** For the app's `metrics` option. */
  requests: RequestMetrics;
  /** For the webhook worker's `onAttempt`. */
  webhookAttempt(outcome: AttemptOutcome["kind"]): void;
  /** For the audit sinks' `onDelivered`: events handed to syslog receivers. */
  auditSinkDelivered(count: number): void;
  /** For the audit sinks' `onError`: failed attempts (connect, read, write). */
  auditSinkError(): void;
}

export function createHostMetrics(kit: CaseKit): HostMetrics {
  const { storage, clock } = kit;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = createRequestMetrics(registry);
  const attempts = new Counter({
    name: "casekit_webhook_attempts_total",
    help: "Webhook delivery attempts made by this process, by outcome (delivered, retry, failed, gone)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  // Every outcome from the start, so a rate over them never misses the first one.
  const outcomes = { delivered: attempts.labels("delivered"), retry: attempts.labels("retry"), failed: attempts.labels("failed"), gone: attempts.labels("gone") };
  for (const child of Object.values(outcomes)) child.inc(0);
  const sinkEvents = new Counter({
    name: "casekit_audit_sink_events_total",
    help: "Audit events this process handed to organizations' syslog receivers",
    registers: [registry],
  });
  const sinkErrors = new Counter({
    name: "casekit_audit_sink_errors_total",
    help: "Failed attempts of organizations' syslog sinks in this process (connect, read or write; each is retried)",
    registers: [registry],
  });

  // Before the backlog gauges: a scrape reads the pool before its own backlog read asks it for a connection.
  registerStorageGauges(kit, registry);
  // Both backlog gauges are collected at once in a scrape: they share the read in flight.
  let backlog: Promise<DeliveryBacklog | undefined> | undefined;
  const readBacklog = (): Promise<DeliveryBacklog | undefined> =>
    (backlog ??= storage
      .read((tx) => tx.deliveries.backlog())
      // A database that does not answer makes the two gauges NaN (unknown), not the scrape fail.
      .catch(() => undefined)
      .finally(() => (backlog = undefined)));
  new Gauge({
    name: "casekit_webhook_pending_deliveries",
    help: "Webhook deliveries not finished yet (due now or waiting for a retry), in all organizations",
    registers: [registry],
    async collect() {
      this.set((await readBacklog())?.pendingDeliveries ?? Number.NaN);
    },
  });
  new Gauge({
    name: "casekit_outbox_lag_seconds",
    help: "Age of the oldest event the webhook dispatcher has not fanned out yet (0 when there is none)",
    registers: [registry],
    async collect() {
      const value = await readBacklog();
      const oldest = value?.oldestUndispatchedEventAt;
      this.set(value === undefined ? Number.NaN : oldest ? Math.max(0, (clock.now().getTime() - Date.parse(oldest)) / 1000) : 0);
    },
  });
  return {
    registry,
    requests,
    webhookAttempt(outcome) {
      outcomes[outcome].inc();
    },
    auditSinkDelivered: (count) => sinkEvents.inc(count),
    auditSinkError: () => sinkErrors.inc(),
  };
}

/**
 * `read()` once per event-loop turn: the storage gauges of one scrape, collected together, share
 * one snapshot of the storage's figures (on SQLite one stat of the WAL file, not one per gauge).
 */
function oncePerTurn<T>(read: () => T): () => T {
  let held: { value: T } | undefined;
  return () => {
    if (held === undefined) {
      held = { value: read() };
      setImmediate(() => (held = undefined));
    }
    return held.value;
  };
}

/** Only the figures the storage has (WAL, readers, parsed records, pool): no gauge stuck at 0 elsewhere. */
function registerStorageGauges({ storage }: CaseKit, registry: Registry): void {
  const stats = storage.stats?.() ?? {};
  const current = oncePerTurn(() => storage.stats?.() ?? {});
  if (stats.walBytes !== undefined) {
    new Gauge({
      name: "casekit_sqlite_wal_bytes",
      help: "Size of the SQLite write-ahead log file in bytes (checkpointed back to empty past CASEKIT_SQLITE_WAL_LIMIT)",
      registers: [registry],
      collect() {
        this.set(current().walBytes ?? 0);
      },
    });
  }
  if (stats.readers !== undefined) {
    new Gauge({
      name: "casekit_sqlite_reader_connections",
      help: "SQLite read-only connections: open, and busy (running or holding a queued read)",
      labelNames: ["state"] as const,
      registers: [registry],
      collect() {
        const readers = current().readers ?? { open: 0, busy: 0 };
        this.set({ state: "open" }, readers.open);
        this.set({ state: "busy" }, readers.busy);
      },
    });
  }
  if (stats.parsedRecords !== undefined) {
    new Gauge({
      name: "casekit_sqlite_parsed_records",
      help: "Records kept parsed beside their JSON text, reused while a read returns the same text",
      registers: [registry],
      collect() {
        this.set(current().parsedRecords?.records ?? 0);
      },
    });
    new Gauge({
      name: "casekit_sqlite_parsed_record_chars",
      help: "Length of the kept records' JSON texts in UTF-16 code units (bounded by the storage's parsedRecordChars)",
      registers: [registry],
      collect() {
        this.set(current().parsedRecords?.chars ?? 0);
      },
    });
  }
  if (stats.pool !== undefined) {
    new Gauge({
      name: "casekit_postgres_pool_connections",
      help: "PostgreSQL pool connections: total open, and idle",
      labelNames: ["state"] as const,
      registers: [registry],
      collect() {
        const pool = current().pool ?? { total: 0, idle: 0, waiting: 0 };
        this.set({ state: "total" }, pool.total);
        this.set({ state: "idle" }, pool.idle);
      },
    });
    new Gauge({
      name: "casekit_postgres_pool_waiting_requests",
      help: "Units of work waiting for a PostgreSQL pool connection",
      registers: [registry],
      collect() {
        this.set(current().pool?.waiting ?? 0);
      },
    });
  }
}

/** What the app's `metricsEndpoint` option takes. */
export interface MetricsEndpoint {
  registry: Registry;
  /** The bearer token that opens the endpoint; without one, only local clients get it. */
  token: string | undefined;
}

/** Adds `GET /metrics` to the app (a static route: it wins over the app's catch-all 404). */
export function registerMetricsRoute(app: H3, host: HostState, endpoint: MetricsEndpoint): void {
  const allowed = endpoint.token === undefined ? fromThisMachine : bearerOf(endpoint.token);
  app.get(
    metricsPath,
    defineHostHandler(
      host,
      async (event) => {
        const refusal = allowed(event);
        if (refusal !== undefined) throw new CaseKitError(refusal.code, refusal.detail);
        return new Response(await endpoint.registry.metrics(), { headers: { "content-type": endpoint.registry.contentType } });
      },
      { route: metricsPath },
    ),
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
