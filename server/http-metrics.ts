import { Counter } from "prom-client";
import type { Metric, Registry } from "prom-client";
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

/** One series: a route's requests of one method and status. */
interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Requests per bucket (not cumulative): index i counts durations ≤ durationBuckets[i] and above the one before; the last, above them all. */
  buckets: number[];
}

/**
 * The HTTP families on `registry`:
 * - `casekit_http_requests_total{method,route,status}` (counter),
 * - `casekit_http_request_duration_seconds{method,route,status}` (histogram),
 * - `casekit_rate_limit_refusals_total{reason,tier}` (counter).
 *
 * Labels are bounded: `route` is the handler's template, never the request's path; `method` one of
 * eight; `status` the few the API answers. The request path stays cheap: each route keeps its
 * series in a map keyed by status and method as one number, and a request adds to plain numbers
 * (a lookup, two additions, a bucket search). prom-client's own label children cost about 0.75 µs
 * per request here (a label hash string built on every `inc` and `observe`); these cost a few
 * dozen nanoseconds, and the registry turns them into the exposition only when scraped.
 */
export function createRequestMetrics(registry: Registry): RequestMetrics {
  const all: Series[] = [];
  registry.registerMetric(requestCounter(all) as unknown as Metric);
  registry.registerMetric(durationHistogram(all) as unknown as Metric);
  const refusals = new Counter({
    name: "casekit_rate_limit_refusals_total",
    help: "Requests refused with 429, by the limit that refused (minute_rate, hourly_quota, bad_keys, sign_in) and the caller's tier (none without one)",
    labelNames: ["reason", "tier"] as const,
    registers: [registry],
  });
  return {
    forRoute(route) {
      const mine = new Map<number, Series>();
      return (method, status, seconds) => {
        const m = methodIndex(method);
        const key = status * methodLabels.length + m;
        let series = mine.get(key);
        if (series === undefined) {
          series = { labels: { method: methodLabels[m]!, route, status: String(status) }, count: 0, sum: 0, buckets: new Array<number>(durationBuckets.length + 1).fill(0) };
          mine.set(key, series);
          all.push(series);
        }
        series.count += 1;
        series.sum += seconds;
        let bucket = 0;
        while (bucket < durationBuckets.length && seconds > durationBuckets[bucket]!) bucket += 1;
        series.buckets[bucket]! += 1;
      };
    },
    refused({ reason, tier }) {
      // Rare (a refusal): prom-client's counter as it is.
      refusals.inc({ reason, tier: tier ?? "none" });
    },
  };
}

/**
 * What prom-client's registry reads from a metric when it writes the exposition (`get()`, as its
 * own Counter and Histogram answer it): the series as they stand at the scrape.
 */
interface ExposedMetric {
  name: string;
  help: string;
  type: "counter" | "histogram";
  aggregator: "sum";
  get(): Promise<{ name: string; help: string; type: string; aggregator: "sum"; values: { metricName?: string; labels: Record<string, string | number>; value: number }[] }>;
}

function requestCounter(all: readonly Series[]): ExposedMetric {
  const metric = {
    name: "casekit_http_requests_total",
    help: "HTTP requests answered, by method, route template and status",
    type: "counter" as const,
    aggregator: "sum" as const,
  };
  return { ...metric, get: async () => ({ ...metric, values: all.map((series) => ({ labels: series.labels, value: series.count })) }) };
}

function durationHistogram(all: readonly Series[]): ExposedMetric {
  const metric = {
    name: "casekit_http_request_duration_seconds",
    help: "Time from the request reaching its handler to the answer being ready, by method, route template and status",
    type: "histogram" as const,
    aggregator: "sum" as const,
  };
  return {
    ...metric,
    async get() {
      const values = [];
      for (const series of all) {
        let cumulative = 0;
        for (let i = 0; i <= durationBuckets.length; i++) {
          cumulative += series.buckets[i]!;
          values.push({ metricName: `${metric.name}_bucket`, labels: { le: i < durationBuckets.length ? durationBuckets[i]! : "+Inf", ...series.labels }, value: cumulative });
        }
        values.push({ metricName: `${metric.name}_sum`, labels: series.labels, value: series.sum });
        values.push({ metricName: `${metric.name}_count`, labels: series.labels, value: series.count });
      }
      return { ...metric, values };
    },
  };
}
