/**
 * One table of stable error codes. Every failure the core reports is a CaseKitError with one of
 * these codes; hosts map codes to transport statuses in one exhaustive table (server/problem.ts).
 */
export const errorTitles = {
  validation_failed: "The request is not valid",
  invalid_json: "The body is not valid JSON",
  unsupported_media_type: "The body must be JSON",
  payload_too_large: "The body is too large",
  headers_too_large: "The request line and headers are too large",
  malformed_request: "The request is not valid HTTP",
  request_timeout: "The request did not arrive in time",
  missing_credentials: "No API key was given",
  invalid_key: "The API key is not valid",
  key_revoked: "The API key was revoked",
  key_suspended: "The API key is suspended",
  key_expired: "The API key has expired",
  owner_inactive: "The owner of the API key is not active",
  invalid_credentials: "The email or the password is wrong",
  invalid_session: "The session is unknown or has ended",
  csrf_rejected: "The request lacks the session's CSRF token",
  credentials_in_query: "Credentials must not travel in the query string",
  legacy_credentials_rejected: "Split key and secret headers are not accepted",
  ambiguous_credentials: "More than one credential was given",
  missing_scope: "The API key lacks the scope for this operation",
  tlp_restricted: "The record is above the caller's TLP clearance",
  organization_restricted: "The organization's policy does not allow this",
  tier_restricted: "The rate-limit tier is above the caller's own",
  not_author: "Only the author or an admin may do this",
  not_found: "No such record",
  route_not_found: "No such endpoint",
  method_not_allowed: "The endpoint does not accept this method",
  conflict: "The request conflicts with the current state",
  invalid_transition: "The status change is not allowed",
  mandatory_tasks_open: "The case still has open mandatory tasks",
  required_fields_unset: "Required custom fields are not set",
  unknown_case_type: "The typeValue names no case type of the organization",
  severity_required: "No severity was given and the case's type gives no defaultSeverity",
  invalid_field_definition: "The custom field definition does not hold together",
  invalid_sink_config: "The audit sink configuration does not hold together",
  case_type_archived: "The case type is archived: no new cases of it",
  record_closed: "The record is closed: reopen it first",
  transition_blocked: "The status change needs requirements that are not met",
  unknown_status: "The status is not one of the organization's lifecycle",
  unknown_lifecycle: "The lifecycle key names no lifecycle of the organization",
  status_not_in_lifecycle: "The case's status does not exist in the lifecycle its new type follows",
  invalid_lifecycle: "The lifecycle breaks a rule every lifecycle keeps",
  invalid_configuration: "The configuration document breaks rules of its definitions",
  bulk_too_large: "The bulk request touches more records than this deployment allows",
  unknown_reference: "The request names a record that does not exist or cannot be used here",
  invalid_expiry: "The expiry is not in the future",
  rate_limited: "Too many requests",
  unavailable: "The service is not ready",
  body_already_consumed: "Another part of the server read the request body first",
  internal_error: "Something went wrong on our side",
} as const;

export type ErrorCode = keyof typeof errorTitles;

/**
 * The limit behind a rate_limited error: a key's minute rate or hourly quota (with the caller's
 * tier, `null` when it has none), an address spending its bad-key budget, or the sign-in throttle.
 */
export interface RateLimitRefusal {
  reason: "minute_rate" | "hourly_quota" | "bad_keys" | "sign_in";
  tier: string | null;
}

export interface FieldError {
  /** Dotted path of the offending field, e.g. `tags.0.name`; empty for the whole body. */
  path: string;
  message: string;
}

export class CaseKitError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  /** For rate_limited: whole seconds until a retry may succeed. */
  retryAfterSeconds: number | undefined;
  /** For rate_limited: which limit refused (the host counts refusals by it, see server/metrics.ts). */
  refusedBy: RateLimitRefusal | undefined;
  /** For bulk_too_large: the most records one bulk request may touch (a problem extension member). */
  readonly maxRows: number | undefined;
  /** For transition_blocked (and mandatory_tasks_open, required_fields_unset): the gates that do not hold (core/lifecycles/engine.ts gatesOfMove). */
  readonly unmet: string[] | undefined;

  constructor(code: ErrorCode, detail?: string, errors?: FieldError[], options?: { cause?: unknown; maxRows?: number; unmet?: string[] }) {
    super(detail ?? errorTitles[code], options);
    this.name = "CaseKitError";
    this.code = code;
    this.errors = errors;
    this.maxRows = options?.maxRows;
    this.unmet = options?.unmet;
  }

  get title(): string {
    return errorTitles[this.code];
  }
}

export function isCaseKitError(value: unknown): value is CaseKitError {
  return value instanceof Error && value.name === "CaseKitError" && "code" in value;
}

/**
 * A well-formed body that names a record the caller's organization cannot use (no such user,
 * an inactive one, another organization's team …). Not validation_failed: the body is what the
 * schema allows; the records are what they are.
 */
export function unknownReference(path: string, message: string): CaseKitError {
  return new CaseKitError("unknown_reference", `${path}: ${message}`, [{ path, message }]);
}

/** Shorthand for the most common failure: one field is wrong. */
export function invalidField(path: string, message: string): CaseKitError {
  return new CaseKitError("validation_failed", `${path}: ${message}`, [{ path, message }]);
}
