import { rememberBounded } from "../bounded-map.js";
import type { AuditChange } from "./types.js";

/** What a masked value reads as. */
export const maskedValue = "[masked]";

/**
 * The one rule for what an audit event never stores: any value under a path segment naming a
 * hash (key hashes, password hashes, session and CSRF token hashes), a secret (webhook secrets,
 * sealed or not), a token, a password, or a webhook's auth configuration. Display prefixes
 * (`start`, `secretStart`) and dates (`previousSecretExpiresAt`) are not secrets.
 */
export function isSecretPath(path: string): boolean {
  let secret = secretPaths.get(path);
  if (secret === undefined) {
    secret = path.split(".").some((segment) => /(hash|secret|token|password)$/i.test(segment) || /^authconfig$/i.test(segment));
    rememberBounded(secretPaths, path, secret, secretPathsMax);
  }
  return secret;
}

/**
 * Paths already judged: the same few (a record's fields) recur in every change, 100 000 times in
 * a bulk. Bounded (rememberBounded), so paths from clients' own data (custom field keys) cannot
 * grow it without limit.
 */
const secretPaths = new Map<string, boolean>();
const secretPathsMax = 4096;

/** The changes with every secret value masked; null stays null (a secret set or cleared still shows). */
export function maskSecrets(changes: AuditChange[]): AuditChange[] {
  // Most changes hold no secret: the list itself is then the answer, not a copy of it.
  if (!changes.some((change) => isSecretPath(change.path))) return changes;
  return changes.map((change) =>
    isSecretPath(change.path) ? { path: change.path, before: mask(change.before), after: mask(change.after) } : change,
  );
}

const mask = (value: unknown): unknown => (value === null || value === undefined ? null : maskedValue);
