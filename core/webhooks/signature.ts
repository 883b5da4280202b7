import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): a per-subscription secret
 * `whsec_<base64 of 32 random bytes>`, and for each delivery the headers `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">`. Several signatures are space-separated (sent during a secret
 * rotation, so receivers holding either secret verify).
 */
const secretPrefix = "whsec_";

export function generateWebhookSecret(): string {
  return `${secretPrefix}${randomBytes(32).toString("base64")}`;
}

export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(secretPrefix)) return false;
  const key = Buffer.from(value.slice(secretPrefix.length), "base64");
  return key.length >= 24 && key.length <= 64;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, "base64");
}

export function signPayload(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** The three headers of one delivery attempt; `secrets` holds the current secret and, during a rotation, the previous one. */
export function signedHeaders(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.map((secret) => signPayload(secret, id, timestamp, body)).join(" "),
  };
}

/** Verifies as a receiver would (used by tests and by embedders' receivers); tolerance in seconds. */
export function verifySignature(secret: string, headers: SignedHeaders, body: string, now: Date, toleranceSeconds = 300): boolean {
  const timestamp = Number(headers["webhook-timestamp"]);
  if (!Number.isInteger(timestamp) || Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signPayload(secret, headers["webhook-id"], timestamp, body));
  return headers["webhook-signature"].split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
