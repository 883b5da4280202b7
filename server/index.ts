// casekit/h3: the thin h3 host of the casekit API. Named exports only.
export { createCaseKitApp, mountCaseKit } from "./app.js";
export type { CaseKitAppOptions } from "./app.js";
export type { AccessLogLine } from "./handle.js";
export type { HostIdentity, IdentifyRequest } from "./identity.js";
export { buildOpenApiDocument } from "./openapi.js";
export type { OpenApiDocument, OpenApiOptions } from "./openapi.js";
export { httpStatusOf, problemSchema, problemTypeBase } from "./problem.js";
export type { Problem } from "./problem.js";
export { apiBasePath } from "./route.js";
export type { ApiMethod, ApiRoute, RouteInput } from "./route.js";
export { apiRoutes } from "./routes/index.js";
export { defaultBodyLimitBytes } from "./body.js";
export { createHostMetrics, metricsPath } from "./metrics.js";
export type { HostMetrics, MetricsEndpoint } from "./metrics.js";
export { createRequestMetrics } from "./http-metrics.js";
export type { RequestMetrics, RouteRecorder } from "./http-metrics.js";
export { createOpenTelemetryTracer, loadOpenTelemetryTracer } from "./tracing.js";
export type { OpenTelemetryApi, RequestTracer } from "./tracing.js";
