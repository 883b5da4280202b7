import { CaseKitError, isCaseKitError } from "../core/index.js";
import type { CaseKit, ErrorCode, LimitDecision, Principal } from "../core/index.js";

/**
 * The host's side of rate limiting (spec section 8). The core decides (`kit.limits`); the host
 * turns a decision into headers and a refusal into 429, after authentication and before the
 * handler runs, so no tier bypasses tenant, scope, TLP or owner checks and every authenticated
 * answer, errors included, says where the key stands.
 */
export async function meterKey(kit: CaseKit, principal: Principal, headers: Headers): Promise<void> {
  const decision = await kit.limits.consume(principal);
  if (decision === null) return;
  writeLimitHeaders(decision, headers);
  if (!decision.allowed) throw refusal(decision, "The API key's rate limit is spent; retry after the time in Retry-After");
}

/** `X-RateLimit-Limit` is the limit of the window that binds; Reset is in Unix seconds. */
export function writeLimitHeaders(decision: LimitDecision, headers: Headers): void {
  headers.set("x-ratelimit-limit", String(decision.limit));
  headers.set("x-ratelimit-remaining", String(Math.max(0, decision.remaining)));
  headers.set("x-ratelimit-reset", String(Math.ceil(decision.resetAt / 1000)));
}

function refusal(decision: LimitDecision, detail: string): CaseKitError {
  const error = new CaseKitError("rate_limited", detail);
  error.retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  return error;
}

/** Failures that count against the source address: someone guessing keys or passwords. */
const guessingCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "invalid_key",
  "key_revoked",
  "key_suspended",
  "key_expired",
  "owner_inactive",
  "invalid_credentials",
]);

/**
 * Runs a credential check for a source address: refused at once (429) while the address has
 * spent its failure budget (stricter than the basic tier), and every guessing failure counted.
 * Without an address (an in-process call) there is nothing to count by.
 */
export async function throttleBySource<T>(kit: CaseKit, address: string | undefined, check: () => Promise<T>): Promise<T> {
  if (address === undefined) return check();
  const blocked = await kit.limits.sourceBlocked(address);
  if (blocked) throw refusal(blocked, "Too many failed attempts from this address; retry after the time in Retry-After");
  try {
    return await check();
  } catch (error) {
    if (isCaseKitError(error) && guessingCodes.has(error.code)) await kit.limits.recordSourceFailure(address);
    throw error;
  }
}
