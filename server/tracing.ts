import { version } from "../core/index.js";

/**
 * Optional OpenTelemetry tracing: one SERVER span per request, named `<method> <route template>`,
 * with the semantic-convention attributes `http.request.method`, `http.route` and
 * `http.response.status_code` (and `casekit.request_id`, the id the answer carries), an error
 * status for a 5xx, and the caller's `traceparent` as its parent. casekit depends only on
 * `@opentelemetry/api`, loaded when asked for (CASEKIT_OTEL); where spans go is the user's SDK
 * set-up (NODE_OPTIONS=--import …). Without the SDK the API hands out spans that record nothing.
 */
export interface RequestTracer {
  /** Runs one request's answer inside its span; the span ends with the answer's status. */
  trace(request: Request, route: string, answer: () => Promise<Response>): Promise<Response>;
}

/** The few parts of `@opentelemetry/api` used here (so its types are not ours to ship). */
export interface OpenTelemetryApi {
  trace: {
    getTracer(name: string, version?: string): OtelTracer;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
  };
  context: { with<T>(context: OtelContext, run: () => T): T };
  propagation: { extract<C>(context: OtelContext, carrier: C, getter: { get(carrier: C, key: string): string | undefined; keys(carrier: C): string[] }): OtelContext };
  ROOT_CONTEXT: OtelContext;
  SpanKind: { SERVER: number };
  SpanStatusCode: { ERROR: number };
}
type OtelContext = object;
interface OtelTracer {
  startSpan(name: string, options: { kind: number; attributes: Record<string, string | number> }, context: OtelContext): OtelSpan;
}
interface OtelSpan {
  setAttribute(key: string, value: string | number): unknown;
  setStatus(status: { code: number }): unknown;
  end(): void;
}

const headerGetter = {
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
  keys: (headers: Headers) => [...headers.keys()],
};

export function createOpenTelemetryTracer(api: OpenTelemetryApi): RequestTracer {
  const tracer = api.trace.getTracer("casekit", version);
  return {
    async trace(request, route, answer) {
      const parent = api.propagation.extract(api.ROOT_CONTEXT, request.headers, headerGetter);
      const span = tracer.startSpan(`${request.method} ${route}`, { kind: api.SpanKind.SERVER, attributes: { "http.request.method": request.method, "http.route": route } }, parent);
      try {
        // Spans the work starts (a database driver's instrumentation) are this one's children.
        const response = await api.context.with(api.trace.setSpan(parent, span), answer);
        span.setAttribute("http.response.status_code", response.status);
        const requestId = response.headers.get("x-request-id");
        if (requestId) span.setAttribute("casekit.request_id", requestId);
        if (response.status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
        return response;
      } finally {
        span.end();
      }
    },
  };
}

const apiPackage = "@opentelemetry/api";

/**
 * The tracer, when `@opentelemetry/api` can be imported; undefined when it is not installed (the
 * host then runs untraced). `load` is the import, replaceable by tests.
 */
export async function loadOpenTelemetryTracer(load: () => Promise<unknown> = () => import(apiPackage)): Promise<RequestTracer | undefined> {
  let api: unknown;
  try {
    api = await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") return undefined;
    throw error;
  }
  // An ES module namespace, or the CommonJS exports under `default`.
  const namespace = api as Partial<OpenTelemetryApi> & { default?: OpenTelemetryApi };
  return createOpenTelemetryTracer(namespace.trace ? (namespace as OpenTelemetryApi) : namespace.default!);
}
