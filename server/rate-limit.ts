import { CaseKitError, isCaseKitError } from "../core/index.js";
import type { CaseKit, EarlySpend, ErrorCode, LimitDecision, Principal, RateLimitRefusal } from "../core/index.js";
import type { AnswerHeaders } from "./answer.js";

/**
 * The host's side of rate limiting (spec section 8). The core decides (`kit.limits`); the host
 * turns a decision into headers and a refusal into 429, after authentication and before the
 * handler runs, so no tier bypasses tenant, scope, TLP or owner checks and every authenticated
 * answer, errors included, says where the key stands. On a remote store the key's spend may
 * start while the key is checked (`early`, RateLimiter.spendEarly); its decision is used only
 * after the check has confirmed that very key.
 */
export function meterKey(kit: CaseKit, principal: Principal, headers: AnswerHeaders, early?: EarlySpend): void | Promise<void> {
  const decision = kit.limits.consume(principal, early);
  if (decision instanceof Promise) return decision.then((settled) => answerDecision(settled, principal, headers));
  answerDecision(decision, principal, headers);
}

/** The decision's headers on the answer, and 429 for a refusal. */
function answerDecision(decision: LimitDecision | null, principal: Principal, headers: AnswerHeaders): void {
  if (decision === null) return;
  writeLimitHeaders(decision, headers);
  if (!decision.allowed) {
    const reason = decision.window === "minute" ? "minute_rate" : "hourly_quota";
    throw refusal(decision, "The API key's rate limit is spent; retry after the time in Retry-After", { reason, tier: principal.tier ?? null });
  }
}

/**
 * `X-RateLimit-Limit` is the limit of the window that binds; Reset is in Unix seconds. All three
 * are whole, non-negative numbers: the limiter's figures are (see `effectiveLimits`), and a value
 * that somehow is not is left out rather than sent.
 */
export function writeLimitHeaders(decision: LimitDecision, headers: AnswerHeaders): void {
  const limit = decision.limit;
  const remaining = Math.max(0, decision.remaining);
  const reset = Math.ceil(decision.resetAt / 1000);
  if (!isCount(limit) || !isCount(remaining) || !isCount(reset)) return;
  headers.set("x-ratelimit-limit", String(limit));
  headers.set("x-ratelimit-remaining", String(remaining));
  headers.set("x-ratelimit-reset", String(reset));
}

function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

function refusal(decision: LimitDecision, detail: string, refusedBy: RateLimitRefusal): CaseKitError {
  const error = new CaseKitError("rate_limited", detail);
  error.retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  error.refusedBy = refusedBy;
  return error;
}

/** Failures of a presented key: someone guessing keys, or a client configured with a dead one. */
const badKeyCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["invalid_key", "key_revoked", "key_suspended", "key_expired", "owner_inactive"]);

/**
 * Runs a key check for a source address. The check always runs, so a valid key is admitted
 * whatever other clients behind the same address (a NAT, a proxy) got wrong. A request whose key
 * fails counts against the address, and once the address has spent its failure budget (stricter
 * than the basic tier) such requests get 429 with Retry-After instead of 401. Refusing only bad
 * keys tells a guesser nothing: the checksum rejects random guesses before any lookup, and a
 * secret holds at least 128 random bits. Without an address (an in-process call) nothing is counted.
 */
export async function countBadKeys<T>(kit: CaseKit, address: string | undefined, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (address === undefined || !isCaseKitError(error) || !badKeyCodes.has(error.code)) throw error;
    const decision = await kit.limits.recordSourceFailure(address);
    if (decision && !decision.allowed) throw refusal(decision, "Too many requests with bad API keys from this address; retry after the time in Retry-After", { reason: "bad_keys", tier: null });
    throw error;
  }
}

/**
 * After a bulk request: charges the key for the rows the answer reports (`matched`, changed or
 * skipped; see `rowCost`), and states the budget after the charge in this answer's headers.
 */
export async function chargeBulkRows(kit: CaseKit, principal: Principal, value: unknown, headers: AnswerHeaders): Promise<void> {
  const rows = bulkRowsOf(value);
  if (rows === 0) return;
  const decision = await kit.limits.chargeRows(principal, rows);
  if (decision) writeLimitHeaders(decision, headers);
}

/** The rows a bulk answer (`{ matched, …, bulkRequestId }`) says it touched; 0 for anything else. */
function bulkRowsOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const { matched, bulkRequestId } = value as { matched?: unknown; bulkRequestId?: unknown };
  return typeof bulkRequestId === "string" && typeof matched === "number" ? matched : 0;
}
