import { describe, expect, it } from "vitest";
import { CaseKitError, errorTitles } from "../../core/index.js";
import * as entry from "../../server/index.js";
import { httpStatusOf, problemOf, toProblem } from "../../server/problem.js";

describe("error codes to HTTP statuses", () => {
  it("maps every core error code to the status the conventions name", () => {
    expect(Object.keys(httpStatusOf).sort()).toEqual(Object.keys(errorTitles).sort());
    expect(httpStatusOf).toEqual({
      validation_failed: 400,
      invalid_json: 400,
      unsupported_media_type: 415,
      payload_too_large: 413,
      headers_too_large: 431,
      bulk_too_large: 400,
      malformed_request: 400,
      request_timeout: 408,
      missing_credentials: 401,
      invalid_key: 401,
      key_revoked: 401,
      key_suspended: 401,
      key_expired: 401,
      owner_inactive: 401,
      invalid_credentials: 401,
      invalid_session: 401,
      credentials_in_query: 401,
      legacy_credentials_rejected: 401,
      ambiguous_credentials: 401,
      missing_scope: 403,
      csrf_rejected: 403,
      tlp_restricted: 403,
      tier_restricted: 403,
      organization_restricted: 403,
      not_author: 403,
      not_found: 404,
      route_not_found: 404,
      method_not_allowed: 405,
      conflict: 409,
      record_closed: 409,
      invalid_transition: 409,
      mandatory_tasks_open: 409,
      transition_blocked: 409,
      unknown_status: 400,
      unknown_lifecycle: 400,
      status_not_in_lifecycle: 409,
      invalid_lifecycle: 422,
      invalid_configuration: 422,
      required_fields_unset: 409,
      unknown_case_type: 400,
      severity_required: 400,
      invalid_field_definition: 422,
      invalid_sink_config: 422,
      case_type_archived: 400,
      unknown_reference: 422,
      invalid_expiry: 422,
      rate_limited: 429,
      unavailable: 503,
      body_already_consumed: 500,
      internal_error: 500,
    });
  });

  it("keeps a CaseKitError's code, detail and field errors", () => {
    const { problem, unexpected } = toProblem(new CaseKitError("validation_failed", "title: too long", [{ path: "title", message: "too long" }]));
    expect(unexpected).toBe(false);
    expect(problem).toEqual({
      type: "https://casekit.dev/problems/validation_failed",
      title: errorTitles.validation_failed,
      status: 400,
      detail: "title: too long",
      code: "validation_failed",
      errors: [{ path: "title", message: "too long" }],
    });
  });

  it("turns anything else into a generic 500 that repeats nothing of the error", () => {
    for (const thrown of [new Error("SELECT secret FROM keys"), new TypeError("x is undefined"), "a string", { code: "not_found" }, null]) {
      const { problem, unexpected } = toProblem(thrown);
      expect(unexpected).toBe(true);
      expect(problem.code).toBe("internal_error");
      expect(problem.status).toBe(500);
      expect(JSON.stringify(problem)).not.toMatch(/SELECT|secret|undefined|a string/);
    }
  });

  it("omits an empty errors list", () => {
    expect(problemOf("not_found", "No case x")).not.toHaveProperty("errors");
  });
});

describe("the casekit/h3 entry point", () => {
  it("exports exactly its public API", () => {
    expect(Object.keys(entry).sort()).toEqual([
      "apiBasePath",
      "apiRoutes",
      "buildOpenApiDocument",
      "createCaseKitApp",
      "createHostMetrics",
      "createOpenTelemetryTracer",
      "createRequestMetrics",
      "defaultBodyLimitBytes",
      "httpStatusOf",
      "loadOpenTelemetryTracer",
      "metricsPath",
      "mountCaseKit",
      "problemSchema",
      "problemTypeBase",
    ]);
  });
});
