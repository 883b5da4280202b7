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
  return path.split(".").some((segment) => /(hash|secret|token|password)$/i.test(segment) || /^authconfig$/i.test(segment));
}

/** The changes with every secret value masked; null stays null (a secret set or cleared still shows). */
export function maskSecrets(changes: readonly AuditChange[]): AuditChange[] {
  return changes.map((change) =>
    isSecretPath(change.path) ? { path: change.path, before: mask(change.before), after: mask(change.after) } : change,
  );
}

const mask = (value: unknown): unknown => (value === null || value === undefined ? null : maskedValue);
