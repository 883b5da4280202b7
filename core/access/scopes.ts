import type { UserRole } from "../users/types.js";

/** The spec's seven scopes (section 5) plus tasks, which follow cases. */
export const dataScopes = [
  "cases:read",
  "cases:write",
  "alerts:read",
  "alerts:write",
  "tasks:read",
  "tasks:write",
  "observables:read",
  "observables:write",
  "users:read",
] as const;

/** Administrative scopes, offered only to key managers who hold the matching permission. */
export const adminScopes = [
  "keys:write",
  "users:write",
  "teams:write",
  "webhooks:read",
  "webhooks:write",
  "audit:read",
  "audit:manage",
  "org:admin",
] as const;

export const allScopes = [...dataScopes, ...adminScopes] as const;
export type Scope = (typeof allScopes)[number];

const readScopes: readonly Scope[] = dataScopes.filter((s) => s.endsWith(":read"));

/** What a role allows; a key's effective scopes are its own scopes intersected with this. */
export const scopesOfRole: Record<UserRole, readonly Scope[]> = {
  admin: allScopes,
  analyst: dataScopes,
  read_only: readScopes,
};

export function isScope(value: string): value is Scope {
  return (allScopes as readonly string[]).includes(value);
}
