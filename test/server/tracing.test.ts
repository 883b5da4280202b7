// Optional OpenTelemetry tracing (server/tracing.ts): without @opentelemetry/api nothing changes;
// with it, one SERVER span per request named by its route template, with the status, the request
// id, an error status for a 5xx and the caller's trace as parent. No global of the API is
// registered here (files share a worker): the recording tracer and propagator are handed in.
import * as otel from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { apiBasePath, createCaseKitApp, createOpenTelemetryTracer, loadOpenTelemetryTracer } from "../../server/index.js";
import type { OpenTelemetryApi } from "../../server/index.js";
import { bearer, inProcess } from "./http.js";
import { makeWorld, validCase } from "./world.js";

interface RecordedSpan {
  name: string;
  kind: number;
  attributes: Record<string, string | number>;
  status?: number;
  ended: boolean;
  parentTraceId: string | undefined;
}

/** The real API's context functions, with a tracer and a W3C `traceparent` reader that record into `spans`. */
function recordingApi(spans: RecordedSpan[]): OpenTelemetryApi {
  return {
    trace: {
      getTracer: () => ({
        startSpan(name, options, context) {
          const span: RecordedSpan = { name, kind: options.kind, attributes: { ...options.attributes }, ended: false, parentTraceId: otel.trace.getSpanContext(context as otel.Context)?.traceId };
          spans.push(span);
          return {
            setAttribute: (key: string, value: string | number) => (span.attributes[key] = value),
            setStatus: ({ code }: { code: number }) => (span.status = code),
            end: () => (span.ended = true),
          };
        },
      }),
      setSpan: (context, span) => otel.trace.setSpan(context as otel.Context, span as unknown as otel.Span),
    },
    context: { with: (context, run) => otel.context.with(context as otel.Context, run) },
    propagation: {
      extract(context, carrier, getter) {
        const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(getter.get(carrier, "traceparent") ?? "");
        return match ? otel.trace.setSpanContext(context as otel.Context, { traceId: match[1]!, spanId: match[2]!, traceFlags: 1, isRemote: true }) : context;
      },
    },
    ROOT_CONTEXT: otel.ROOT_CONTEXT,
    SpanKind: otel.SpanKind,
    SpanStatusCode: otel.SpanStatusCode,
  };
}

describe("OpenTelemetry tracing", () => {
  it("is nothing when @opentelemetry/api is not installed: no tracer, and the app answers as ever", async () => {
    const missing = Object.assign(new Error("Cannot find package '@opentelemetry/api'"), { code: "ERR_MODULE_NOT_FOUND" });
    const tracer = await loadOpenTelemetryTracer(() => Promise.reject(missing));
    expect(tracer).toBeUndefined();
    const w = await makeWorld();
    const client = inProcess(createCaseKitApp(w.kit, { ...(tracer ? { tracer } : {}) }));
    expect((await client.send("GET", "/livez")).status).toBe(200);
    // Any other failure to load it is not hidden.
    await expect(loadOpenTelemetryTracer(() => Promise.reject(new Error("broken install")))).rejects.toThrow("broken install");
  });

  it("with the API installed but no SDK, spans record nothing and every answer is unchanged", async () => {
    const tracer = await loadOpenTelemetryTracer();
    expect(tracer).toBeDefined();
    const w = await makeWorld();
    const client = inProcess(createCaseKitApp(w.kit, { tracer: tracer! }));
    const created = await client.send("POST", `${apiBasePath}/cases`, { headers: bearer(w.adminKey), body: validCase });
    expect(created.status).toBe(200);
    expect((await client.send("GET", `${apiBasePath}/cases/${(created.body as { id: string }).id}`, { headers: bearer(w.adminKey) })).status).toBe(200);
  });

  it("makes one SERVER span per request: route template, status, request id, error status on a 5xx, the caller's trace as parent", async () => {
    const spans: RecordedSpan[] = [];
    const w = await makeWorld();
    w.kit.cases = {
      ...w.kit.cases,
      list: async () => {
        throw new TypeError("boom");
      },
    };
    const client = inProcess(createCaseKitApp(w.kit, { tracer: createOpenTelemetryTracer(recordingApi(spans)) }));
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const missing = await client.send("GET", `${apiBasePath}/cases/case_01hzzzzzzzzzzzzzzzzzzzzzzz`, {
      headers: [...bearer(w.adminKey), ["traceparent", `00-${traceId}-00f067aa0ba902b7-01`]],
    });
    const failed = await client.send("GET", `${apiBasePath}/cases`, { headers: bearer(w.adminKey) });
    await client.send("GET", "/no/such/thing");
    expect(failed.status).toBe(500);

    expect(spans.map((s) => s.name)).toEqual(["GET /api/v1/cases/{id}", "GET /api/v1/cases", "GET /**"]);
    expect(spans.every((s) => s.ended && s.kind === otel.SpanKind.SERVER)).toBe(true);
    expect(spans[0]!.attributes).toEqual({
      "http.request.method": "GET",
      "http.route": "/api/v1/cases/{id}",
      "http.response.status_code": missing.status,
      "casekit.request_id": missing.headers.get("x-request-id")!,
    });
    expect(spans[0]!.parentTraceId).toBe(traceId);
    expect(spans[0]!.status).toBeUndefined();
    expect(spans[1]!).toMatchObject({ status: otel.SpanStatusCode.ERROR, attributes: { "http.response.status_code": 500 }, parentTraceId: undefined });
    expect(spans[2]!.attributes["http.response.status_code"]).toBe(404);
  });
});
