import type { H3Event } from "h3";
import { getQuery, getRequestIP } from "h3";
import { CaseKitError } from "../core/index.js";
import type { CaseKit, EarlySpend, Principal, RequestOrigin } from "../core/index.js";
import type { AnswerHeaders } from "./answer.js";
import { countBadKeys, meterKey } from "./rate-limit.js";

/**
 * Reading the credential of a request (spec section 5): exactly one of `Authorization: Bearer
 * <key>` or `X-Api-Key: <key>`. The checks run in this order, first failure wins:
 *
 * 1. a query parameter that looks like a credential → `credentials_in_query`, even when a header
 *    is present too (the key has leaked into URLs and logs already; the caller must learn it);
 * 2. a split legacy key/secret header → `legacy_credentials_rejected`;
 * 3. more than one credential header — both headers, or either one twice → `ambiguous_credentials`;
 * 4. no credential header → `missing_credentials`;
 * 5. an Authorization scheme other than Bearer, or an empty key → `invalid_key`;
 * 6. the core's key check (`invalid_key`, `key_revoked`, `key_suspended`, `key_expired`,
 *    `owner_inactive`).
 *
 * Counting headers: a web `Request` folds a repeated header into one value (`a, b`), and Node's
 * own `req.headers` even drops a second Authorization. On Node (h3 via srvx) we count the raw
 * header list, `event.runtime.node.req.rawHeaders`, which holds every line as it arrived. Where no
 * raw list exists (other runtimes, in-process `app.fetch`), a comma in the folded value counts as a
 * repeat: neither a key secret (`ck_<env>_<base62>_<base62>`) nor a Bearer credential may contain
 * one, so a comma means two values or junk, and both are refused.
 */
const queryCredentialNames = new Set(["api_key", "apikey", "api-key", "key", "token", "access_token", "secret"]);

/** Headers of split key-id/secret schemes that other products use; never accepted here. */
const legacyCredentialHeaders = [
  "x-api-key-id",
  "x-api-id",
  "x-api-secret",
  "x-api-key-secret",
  "x-secret-key",
  "x-access-key",
  "x-access-key-id",
  "x-secret-access-key",
];

const bearerPattern = /^bearer +(\S+) *$/i;

const legacyCredentialHeaderSet: ReadonlySet<string> = new Set(legacyCredentialHeaders);

/** The key secret the request carries, or the CaseKitError that says why there is none. */
export function readCredential(event: H3Event): string {
  for (const name of Object.keys(getQuery(event))) {
    if (queryCredentialNames.has(name.toLowerCase())) {
      throw new CaseKitError("credentials_in_query", `Do not send credentials in the query string ("${name}"); use the Authorization header`);
    }
  }
  const sent = credentialHeadersOf(event);
  if (sent.legacy) {
    throw new CaseKitError("legacy_credentials_rejected", "Split key/secret headers are not accepted; send the key as Authorization: Bearer <key>");
  }
  if (sent.authorizations + sent.apiKeys > 1) {
    throw new CaseKitError("ambiguous_credentials", "Send exactly one credential: either Authorization: Bearer <key> or X-Api-Key: <key>, once");
  }
  if (sent.authorizations === 1) {
    const match = bearerPattern.exec(sent.authorization);
    if (!match) throw new CaseKitError("invalid_key", "The Authorization header must be Bearer <key>");
    return match[1]!;
  }
  if (sent.apiKeys === 1) {
    const secret = sent.apiKey.trim();
    if (!secret) throw new CaseKitError("invalid_key", "The X-Api-Key header is empty");
    return secret;
  }
  throw new CaseKitError("missing_credentials", "Send an API key as Authorization: Bearer <key> or X-Api-Key: <key>");
}

/** The credential headers of a request: how often each arrived, and the value of each (the last, when repeated). */
interface CredentialHeaders {
  legacy: boolean;
  authorizations: number;
  authorization: string;
  apiKeys: number;
  apiKey: string;
}

/** Read in one pass over the raw header list where there is one (see the note at the top of this file). */
function credentialHeadersOf(event: H3Event): CredentialHeaders {
  const sent: CredentialHeaders = { legacy: false, authorizations: 0, authorization: "", apiKeys: 0, apiKey: "" };
  const raw = event.runtime?.node?.req.rawHeaders;
  if (raw) {
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (name === "authorization") {
        sent.authorizations += 1;
        sent.authorization = raw[i + 1]!;
      } else if (name === "x-api-key") {
        sent.apiKeys += 1;
        sent.apiKey = raw[i + 1]!;
      } else if (legacyCredentialHeaderSet.has(name)) sent.legacy = true;
    }
    return sent;
  }
  const headers = event.req.headers;
  sent.legacy = legacyCredentialHeaders.some((name) => headers.has(name));
  const authorization = headers.get("authorization");
  const apiKey = headers.get("x-api-key");
  // A folded value with a comma is a repeat: neither a key nor a Bearer credential holds one.
  if (authorization !== null) [sent.authorizations, sent.authorization] = [authorization.includes(",") ? 2 : 1, authorization];
  if (apiKey !== null) [sent.apiKeys, sent.apiKey] = [apiKey.includes(",") ? 2 : 1, apiKey];
  return sent;
}

export interface AuthOptions {
  /** Take the client address from the first X-Forwarded-For entry (only behind a proxy you run). */
  trustProxy: boolean;
}

/**
 * Authenticates the request's credential with the core (a 401 CaseKitError otherwise), counting
 * bad keys against the source address (never refusing a valid one, see countBadKeys), then meters
 * the key: rate-limit headers go on `exchange.headers`, and a spent budget is 429 before any
 * handler runs.
 */
export async function authenticate(
  event: H3Event,
  kit: CaseKit,
  exchange: { requestId: string; headers: AnswerHeaders },
  options: AuthOptions,
): Promise<Principal> {
  const secret = readCredential(event);
  const origin = originOf(event, exchange.requestId, options);
  // On a remote rate-limit store the key's spend starts while the key is checked (spendEarly):
  // one round trip of waiting instead of two. It counts only if the check confirms that key.
  // (An in-process store gains nothing from it, so no candidate is even built.)
  let early: EarlySpend | undefined;
  const alongside = kit.limits.config.store.remote === true ? (candidate: Principal) => (early = kit.limits.spendEarly(candidate)) : undefined;
  const principal = await countBadKeys(kit, origin.ip, () => kit.authenticateKey(secret, origin, alongside));
  // At once on an in-process store: no await, so a metered request waits no turn for it.
  const metering = meterKey(kit, principal, exchange.headers, early);
  if (metering !== undefined) await metering;
  return principal;
}

const maxUserAgentLength = 512;

export function originOf(event: H3Event, requestId: string, options: AuthOptions): RequestOrigin {
  const ip = getRequestIP(event, { xForwardedFor: options.trustProxy });
  const userAgent = event.req.headers.get("user-agent");
  return {
    requestId,
    ...(ip ? { ip } : {}),
    ...(userAgent ? { userAgent: userAgent.slice(0, maxUserAgentLength) } : {}),
  };
}
