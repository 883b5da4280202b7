import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import type { SignInThrottle } from "./types.js";

/**
 * Password guessing is slowed without letting an outsider lock the rightful user out:
 *
 * - **per (account, address)**: `signInFailureLimit` failures for one email from one address
 *   within `signInWindowMs` block that pair for the window. A guesser locks out only themselves;
 *   the user signs in from their own address as usual.
 * - **per account, all addresses together**: from `accountSlowDownAfter` failures within the window
 *   on, the account takes one attempt per `accountSlowDownMs` (a slow-down, not a lock-out: a
 *   refused attempt is told to retry within seconds). It bounds a guesser who spreads over many
 *   addresses to about 180 guesses an hour.
 * - **trusted addresses**: an address the account signed in from within `trustedAddressMs` skips
 *   the account-wide slow-down (not its own pair limit), so a distributed attack cannot keep the
 *   user out of their usual place either.
 *
 * Failures count per email, known or not, so the answers never tell which emails exist. Refused
 * attempts are not checked and not counted. The counters live in the sign-in throttle table, one
 * row per subject (the `email` column holds the subject; the forms below cannot be an email).
 */
export const signInFailureLimit = 5;
export const signInWindowMs = 15 * 60 * 1000;
export const accountSlowDownAfter = 20;
export const accountSlowDownMs = 20_000;
export const trustedAddressMs = 30 * 24 * 60 * 60 * 1000;

/** The rows one attempt reads and writes. Without an address (an in-process call) all such attempts share one. */
export interface SignInSubjects {
  account: string;
  pair: string;
  trusted: string | null;
}

export function signInSubjects(email: string, address: string | undefined): SignInSubjects {
  return {
    account: email,
    pair: `${email} from ${address ?? "an unknown address"}`,
    trusted: address === undefined ? null : `${email} trusted at ${address}`,
  };
}

export interface SignInCounters {
  account: SignInThrottle | null;
  pair: SignInThrottle | null;
  trusted: SignInThrottle | null;
}

export async function readSignInCounters(tx: UnitOfWork, subjects: SignInSubjects): Promise<SignInCounters> {
  return {
    account: await tx.signInThrottles.get(subjects.account),
    pair: await tx.signInThrottles.get(subjects.pair),
    trusted: subjects.trusted === null ? null : await tx.signInThrottles.get(subjects.trusted),
  };
}

/** The 429 for an attempt that must not even be checked, or null when it may go ahead. */
export function signInRefusal(counters: SignInCounters, now: Date): CaseKitError | null {
  const at = now.getTime();
  const pairUntil = blockedUntil(counters.pair, at);
  if (pairUntil !== null) return refusal("Too many failed sign-ins for this account from this address; try again later", pairUntil - at);
  const trusted = counters.trusted !== null && Date.parse(counters.trusted.windowStartedAt) + trustedAddressMs > at;
  const accountUntil = blockedUntil(counters.account, at);
  if (accountUntil !== null && !trusted) return refusal("Sign-ins for this account are being slowed down after many failures; retry shortly", accountUntil - at);
  return null;
}

/** The counters to store after a failed attempt. */
export function afterFailure(counters: SignInCounters, subjects: SignInSubjects, now: Date): SignInThrottle[] {
  return [
    next(counters.pair, subjects.pair, now, signInFailureLimit, signInWindowMs),
    next(counters.account, subjects.account, now, accountSlowDownAfter, accountSlowDownMs),
  ];
}

/** After a sign-in: the pair starts afresh and the address becomes trusted for the account. */
export async function afterSuccess(tx: UnitOfWork, subjects: SignInSubjects, now: Date): Promise<void> {
  await tx.signInThrottles.clear(subjects.pair);
  if (subjects.trusted !== null) {
    await tx.signInThrottles.put({ email: subjects.trusted, failures: 0, windowStartedAt: now.toISOString(), blockedUntil: null });
  }
}

function blockedUntil(throttle: SignInThrottle | null, at: number): number | null {
  const until = throttle?.blockedUntil ? Date.parse(throttle.blockedUntil) : NaN;
  return until > at ? until : null;
}

/** One more failure in the subject's window; from `limit` failures on, each blocks it for `blockMs`. */
function next(previous: SignInThrottle | null, subject: string, now: Date, limit: number, blockMs: number): SignInThrottle {
  const fresh = !previous || Date.parse(previous.windowStartedAt) + signInWindowMs <= now.getTime();
  const failures = fresh ? 1 : previous.failures + 1;
  return {
    email: subject,
    failures,
    windowStartedAt: fresh ? now.toISOString() : previous.windowStartedAt,
    blockedUntil: failures >= limit ? new Date(now.getTime() + blockMs).toISOString() : null,
  };
}

function refusal(detail: string, waitMs: number): CaseKitError {
  const error = new CaseKitError("rate_limited", detail);
  error.retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  error.refusedBy = { reason: "sign_in", tier: null };
  return error;
}
