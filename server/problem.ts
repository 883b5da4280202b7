import { z } from "zod";
import { errorTitles, isCaseKitError } from "../core/index.js";
import type { ErrorCode, FieldError } from "../core/index.js";
import { AnswerHeaders } from "./answer.js";

/**
 * RFC 9457 problem details. Every error the host answers is one of these, served as
 * `application/problem+json`:
 *
 *   { "type", "title", "status", "detail", "code", "errors"? }
 *
 * `type` is `https://casekit.dev/problems/<code>`: a stable identifier per code (RFC 9457 §3.1.1
 * allows a URI that does not resolve), so clients may switch on either `type` or `code`.
 */
export const problemTypeBase = "https://casekit.dev/problems/";

/** One exhaustive table from error code to HTTP status: the compiler refuses a missing code. */
export const httpStatusOf: Record<ErrorCode, number> = {
  validation_failed: 400,
  invalid_json: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  headers_too_large: 431,
  malformed_request: 400,
  request_timeout: 408,
  missing_credentials: 401,
  invalid_key: 401,
  invalid_credentials: 401,
  invalid_session: 401,
  key_revoked: 401,
  key_suspended: 401,
  key_expired: 401,
  owner_inactive: 401,
  credentials_in_query: 401,
  legacy_credentials_rejected: 401,
  ambiguous_credentials: 401,
  missing_scope: 403,
  csrf_rejected: 403,
  tlp_restricted: 403,
  organization_restricted: 403,
  tier_restricted: 403,
  not_author: 403,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  invalid_transition: 409,
  mandatory_tasks_open: 409,
  required_fields_unset: 409,
  unknown_case_type: 400,
  severity_required: 400,
  invalid_field_definition: 422,
  invalid_sink_config: 422,
  case_type_archived: 400,
  record_closed: 409,
  transition_blocked: 409,
  unknown_status: 400,
  unknown_lifecycle: 400,
  status_not_in_lifecycle: 409,
  invalid_lifecycle: 422,
  invalid_configuration: 422,
  bulk_too_large: 400,
  unknown_reference: 422,
  invalid_expiry: 422,
  rate_limited: 429,
  unavailable: 503,
  body_already_consumed: 500,
  internal_error: 500,
};

export const errorCodes = Object.keys(httpStatusOf) as [ErrorCode, ...ErrorCode[]];

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  /** bulk_too_large: the deployment's maximum of records per bulk request. */
  maxRows?: number;
  /** transition_blocked, mandatory_tasks_open, required_fields_unset: the gates of the move that do not hold. */
  unmet?: string[];
}

/** The problem body as a zod schema, so the OpenAPI document describes it like every other body. */
export const problemSchema = z
  .object({
    type: z.string().meta({ description: `\`${problemTypeBase}<code>\``, format: "uri" }),
    title: z.string().meta({ description: "Short summary of the code; the same for every occurrence" }),
    status: z.int().meta({ description: "The HTTP status, repeated" }),
    detail: z.string().meta({ description: "What went wrong in this occurrence" }),
    code: z.enum(errorCodes).meta({ description: "Stable machine-readable code" }),
    errors: z
      .array(
        z.object({
          path: z.string().meta({ description: "Dotted path of the offending field; empty for the whole body" }),
          message: z.string(),
        }),
      )
      .optional()
      .meta({ description: "Every invalid field, for validation_failed" }),
    maxRows: z.int().optional().meta({ description: "For bulk_too_large: the most records one bulk request may touch on this deployment" }),
    unmet: z.array(z.string()).optional().meta({ description: "For transition_blocked (and mandatory_tasks_open, required_fields_unset): the gates of the move that do not hold, as GET …/transitions lists them" }),
  })
  .meta({ id: "Problem", description: "RFC 9457 problem details" });

/** What the host knows about a failure: the problem to answer, and whether it was expected. */
export interface ProblemOutcome {
  problem: Problem;
  /** True when the error was not a CaseKitError: a bug or an infrastructure fault. */
  unexpected: boolean;
}

/**
 * Turns anything thrown into a problem. A CaseKitError keeps its code and detail (core messages
 * are written for clients); anything else becomes a generic 500 that reveals nothing: no message,
 * no stack, no SQL.
 */
export function toProblem(error: unknown): ProblemOutcome {
  if (isCaseKitError(error)) {
    const problem = problemOf(error.code, error.message, error.errors);
    return {
      problem: { ...problem, ...(error.maxRows === undefined ? {} : { maxRows: error.maxRows }), ...(error.unmet === undefined ? {} : { unmet: error.unmet }) },
      unexpected: false,
    };
  }
  return {
    problem: problemOf("internal_error", "An unexpected error occurred. Quote the X-Request-Id header when reporting it."),
    unexpected: true,
  };
}

export function problemOf(code: ErrorCode, detail?: string, errors?: FieldError[]): Problem {
  return {
    type: `${problemTypeBase}${code}`,
    title: errorTitles[code],
    status: httpStatusOf[code],
    detail: detail ?? errorTitles[code],
    code,
    ...(errors && errors.length > 0 ? { errors: errors.map(({ path, message }) => ({ path, message })) } : {}),
  };
}

const authRealm = 'Bearer realm="casekit"';

/** The challenge of the API's 401s (RFC 6750 §3): no error attribute when no credential was given. */
export function bearerChallenge(problem: Problem): string {
  return problem.code === "missing_credentials" ? authRealm : `${authRealm}, error="invalid_token"`;
}

/**
 * The problem as an answer's content type, headers and body. Every 401 carries a challenge: the
 * API's Bearer challenge unless the caller names another (the account area challenges for its
 * session cookie).
 */
export function writeProblem(problem: Problem, headers: AnswerHeaders, challenge: (problem: Problem) => string = bearerChallenge): string {
  headers.set("content-type", "application/problem+json");
  if (problem.status === 401) headers.set("www-authenticate", challenge(problem));
  return JSON.stringify(problem);
}

/** The problem as a standard Response of its own (see `writeProblem`). */
export function problemResponse(problem: Problem, headers: AnswerHeaders = new AnswerHeaders(), challenge?: (problem: Problem) => string): Response {
  const body = writeProblem(problem, headers, challenge);
  return new Response(body, { status: problem.status, headers: headers.pairs() });
}
