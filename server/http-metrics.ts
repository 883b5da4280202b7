import { Counter, Histogram } from "prom-client";
import type { Registry } from "prom-client";
import type { RateLimitRefusal } from "../core/index.js";

/**
 * What the host handlers (handle.ts) tell the metrics: every answered request by route template
 * and status, and every rate-limit refusal by the limit that refused.
 */
export interface RequestMetrics {
  /** Called once per handler, at start-up: what records that handler's requests. */
  forRoute(route: string): RouteRecorder;
  refused(refusal: RateLimitRefusal): void;
}

/** Records one answered request of a route: its method, status and duration in seconds. */
export type RouteRecorder = (method: string, status: number, seconds: number) => void;

/** Methods labelled as they are; any other (Node accepts a few dozen) is `other`. */
const methodLabels = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"] as const;

function methodIndex(method: string): number {
  const index = (methodLabels as readonly string[]).indexOf(method);
  return index === -1 ? methodLabels.length - 1 : index;
}

/** From a millisecond (a probe) to ten seconds (a large bulk request). */
const durationBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The HTTP families on `registry`:
 * - `casekit_http_requests_total{method,route,status}` (counter),
 * - `casekit_http_request_duration_seconds{method,route,status}` (histogram),
 * - `casekit_rate_limit_refusals_total{reason,tier}` (counter).
 *
 * Labels are bounded: `route` is the handler's template, never the request's path; `method` one of
 * eight; `status` the few the API answers. The request path stays cheap: each route keeps the
 * label children it has met, keyed by status and method as one number, so a request costs a map
 * lookup, an increment and a bucket search, never a label object or its hash string being built.
 */
export function createRequestMetrics(registry: Registry): RequestMetrics {
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({ name: "casekit_http_requests_total", help: "HTTP requests answered, by method, route template and status", labelNames, registers: [registry] });
  const durations = new Histogram({
    name: "casekit_http_request_duration_seconds",
    help: "Time from the request reaching its handler to the answer being ready, by method, route template and status",
    labelNames,
    buckets: durationBuckets,
    registers: [registry],
  });
  const refusals = new Counter({
    name: "casekit_rate_limit_refusals_total",
    help: "Requests refused with 429, by the limit that refused (minute_rate, hourly_quota, bad_keys, sign_in) and the caller's tier (none without one)",
    labelNames: ["reason", "tier"] as const,
    registers: [registry],
  });
  return {
    forRoute(route) {
      const children = new Map<number, { count: Counter.Internal; duration: Histogram.Internal<(typeof labelNames)[number]> }>();
      return (method, status, seconds) => {
        const m = methodIndex(method);
        const key = status * methodLabels.length + m;
        let child = children.get(key);
        if (child === undefined) {
          const labels = { method: methodLabels[m]!, route, status: String(status) };
          child = { count: requests.labels(labels), duration: durations.labels(labels) };
          children.set(key, child);
        }
        child.count.inc();
        child.duration.observe(seconds);
      };
    },
    refused({ reason, tier }) {
      // Rare (a refusal), so no cache: the labels are built each time.
      refusals.inc({ reason, tier: tier ?? "none" });
    },
  };
}
