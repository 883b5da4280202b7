import type { H3Event } from "h3";
import { CaseKitError, hostIdentitySchema, isCaseKitError } from "../core/index.js";
import type { KeyTier, Principal, Scope } from "../core/index.js";
import type { AnswerHeaders } from "./answer.js";
import { authenticate, originOf } from "./auth.js";
import type { HostState } from "./handle.js";
import { httpStatusOf } from "./problem.js";
import { meterKey } from "./rate-limit.js";

/**
 * Who the embedding host says the caller is: a user of one of casekit's organizations. It is a
 * claim, not a grant: `kit.principalFor` applies the same rule as for keys (the user must exist
 * in that organization and be active, the role caps the scopes, the user's clearance caps the
 * TLP clearance), and every service still checks tenant, scope, TLP and organization policy.
 */
export interface HostIdentity {
  organizationId: string;
  userId: string;
  /** What this caller may do, capped by the user's role. Omitted: everything the role allows. */
  scopes?: readonly Scope[];
  /** 0–4, capped by the user's clearance. Omitted: the user's. */
  tlpClearance?: number;
  /** The rate-limit tier, counted per user. Default `standard`. */
  tier?: KeyTier;
}

/**
 * The host's identity check: reads the request (a session cookie, a header set by your gateway…)
 * and answers who it is, or undefined when it cannot tell (401). Anything it throws is a 401 too:
 * a CaseKitError with a 401 code keeps its code, anything else becomes `invalid_session` and is
 * handed to `onUnexpectedError`, never to the client.
 */
export type IdentifyRequest = (request: Request) => Promise<HostIdentity | undefined> | HostIdentity | undefined;

export interface IdentityOptions {
  identify?: IdentifyRequest;
  /** With `identify`: also accept casekit API keys when `identify` answers undefined. */
  acceptApiKeys?: boolean;
}

const defaultHostTier: KeyTier = "standard";

/**
 * How the app turns a request into a principal: casekit API keys by default; with `identify`, the
 * host's identity instead (and keys only as a fallback when `acceptApiKeys` is set). Either way
 * the principal is metered before any handler runs.
 */
export function createRequestAuthenticator(options: IdentityOptions) {
  const { identify, acceptApiKeys = false } = options;
  return async function authenticateRequest(event: H3Event, host: HostState, exchange: { requestId: string; headers: AnswerHeaders }): Promise<Principal> {
    if (!identify) return authenticate(event, host.kit, exchange, host);
    const identity = await askHost(identify, event, host, exchange.requestId);
    if (identity === undefined) {
      if (acceptApiKeys) return authenticate(event, host.kit, exchange, host);
      throw new CaseKitError("missing_credentials", "Sign in first: the application did not recognise this request");
    }
    const principal = await host.kit.principalFor({
      organizationId: identity.organizationId,
      userId: identity.userId,
      ...(identity.scopes ? { scopes: identity.scopes } : {}),
      ...(identity.tlpClearance !== undefined ? { tlpClearance: identity.tlpClearance } : {}),
      tier: identity.tier ?? defaultHostTier,
      origin: originOf(event, exchange.requestId, host),
    });
    await meterKey(host.kit, principal, exchange.headers);
    return principal;
  };
}

async function askHost(identify: IdentifyRequest, event: H3Event, host: HostState, requestId: string): Promise<HostIdentity | undefined> {
  let answer: unknown;
  try {
    answer = await identify(event.req);
  } catch (error) {
    if (isCaseKitError(error) && httpStatusOf[error.code] === 401) throw error;
    report(host, error, requestId);
    throw new CaseKitError("invalid_session", "The application could not identify this request");
  }
  if (answer === undefined || answer === null) return undefined;
  const problem = malformation(answer);
  if (problem) {
    report(host, new TypeError(`identify answered a malformed identity: ${problem}`), requestId);
    throw new CaseKitError("invalid_session", "The application could not identify this request");
  }
  return answer as HostIdentity;
}

/**
 * What is wrong with an identity the host answered, or undefined when nothing is. Checked with
 * the schema `kit.principalFor` uses (prefixed ids, known scopes and tier, clearance an integer
 * 0–4); fields casekit does not read are ignored.
 */
function malformation(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "not an object";
  const { organizationId, userId, scopes, tlpClearance, tier } = value as Record<string, unknown>;
  const known = { organizationId, userId, scopes, tlpClearance, tier };
  const result = hostIdentitySchema.safeParse(Object.fromEntries(Object.entries(known).filter(([, v]) => v !== undefined)));
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  return issue ? `${issue.path.join(".") || "identity"}: ${issue.message}` : "not an identity";
}

/** The host's own failure goes to its error hook; a failing hook changes nothing. */
function report(host: HostState, error: unknown, requestId: string): void {
  try {
    host.onUnexpectedError?.(error, { requestId });
  } catch {
    // Deliberately ignored.
  }
}
