/**
 * When the next attempt of a failed delivery happens: exponential backoff from the
 * subscription's `retryDelayMs` (×2 per attempt, capped at an hour) with "equal jitter" (half
 * fixed, half random) so a receiver that comes back is not hit by every queued delivery at once.
 * A `Retry-After` on 429 or 503 is honoured when it asks for longer (capped at a day).
 */
const maxBackoffMs = 60 * 60_000;
const maxRetryAfterMs = 24 * 60 * 60_000;

/** Delay before attempt `attempt + 1`, after attempt `attempt` (1-based) failed. `random` ∈ [0, 1). */
export function backoffMs(retryDelayMs: number, attempt: number, random: number): number {
  const exponential = Math.min(maxBackoffMs, retryDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random);
}

/** Retry-After as milliseconds from `now`: seconds, or an HTTP date. Null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(maxRetryAfterMs, Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.min(maxRetryAfterMs, Math.max(0, at - now.getTime()));
}

export type AttemptOutcome =
  | { kind: "delivered" }
  /** The receiver says the subscription is gone (410): disable it, retry nothing. */
  | { kind: "gone" }
  | { kind: "retry"; delayMs: number }
  | { kind: "failed" };

/**
 * What follows an attempt: 2xx delivered; 410 disables the subscription; anything else (other
 * statuses, redirects — never followed — timeouts, network errors, blocked addresses) is retried
 * until `maxRetries` retries have been spent, i.e. at most `maxRetries + 1` attempts.
 */
export function nextStep(
  result: { status: number; retryAfter: string | null } | { error: "timeout" | "network" | "blocked" },
  attempt: number,
  subscription: { maxRetries: number; retryDelayMs: number },
  now: Date,
  random: number,
): AttemptOutcome {
  if ("status" in result) {
    if (result.status >= 200 && result.status < 300) return { kind: "delivered" };
    if (result.status === 410) return { kind: "gone" };
  }
  if (attempt > subscription.maxRetries) return { kind: "failed" };
  const backoff = backoffMs(subscription.retryDelayMs, attempt, random);
  const asked = "status" in result && (result.status === 429 || result.status === 503) ? retryAfterMs(result.retryAfter, now) : null;
  return { kind: "retry", delayMs: Math.max(backoff, asked ?? 0) };
}
