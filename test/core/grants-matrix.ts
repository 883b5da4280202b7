/**
 * "Nobody grants what they do not hold", for users: every caller × every target × every change,
 * with the answer each must get. Shared by the in-process test (kit.users) and the HTTP test
 * (PATCH/POST /api/v1/users), so both hosts are held to the same table.
 *
 * The expected answer is written from the documented rule (README "Users, teams, organization"),
 * not from the code: a user's rights are every scope of their role and their clearance; a caller
 * may change a user only if they hold all of the user's rights as they are and as they would be,
 * checked in that order, scopes before clearance; setting a password also needs org:admin.
 */
import { allScopes, dataScopes, scopesOfRole, userRoles } from "../../core/index.js";
import type { ErrorCode, Scope, UserRole } from "../../core/index.js";

export interface Caller {
  name: string;
  /** The role of the key's owner: the role caps the key's scopes. */
  ownerRole: UserRole;
  scopes: readonly Scope[];
  tlpClearance: number;
}

export interface Target {
  role: UserRole;
  tlpClearance: number;
}

export interface UserPatch {
  name: string;
  patch: { name?: string; role?: UserRole; tlpClearance?: number; status?: "disabled"; password?: string };
}

const scopeSets: Record<string, readonly Scope[]> = {
  "every scope": allScopes,
  "every scope but org:admin": allScopes.filter((s) => s !== "org:admin"),
  "analyst scopes and users:write": [...dataScopes, "users:write"],
  "only users:read and users:write": ["users:read", "users:write"],
};

export const callers: Caller[] = userRoles
  .filter((role) => role !== "read_only")
  .flatMap((ownerRole) =>
    Object.entries(scopeSets).flatMap(([setName, scopes]) =>
      [2, 4].map((tlpClearance) => ({ name: `${ownerRole}'s key with ${setName}, clearance ${tlpClearance}`, ownerRole, scopes, tlpClearance })),
    ),
  );

export const targets: Target[] = userRoles.flatMap((role) => [1, 2, 4].map((tlpClearance) => ({ role, tlpClearance })));

export const changes: UserPatch[] = [
  { name: "rename", patch: { name: "Renamed by the grants matrix" } },
  ...userRoles.map((role) => ({ name: `role → ${role}`, patch: { role } })),
  ...[0, 2, 4].map((tlpClearance) => ({ name: `clearance → ${tlpClearance}`, patch: { tlpClearance } })),
  { name: "disable", patch: { status: "disabled" as const } },
  { name: "set password", patch: { password: "a new password chosen by the caller" } },
];

/** What the caller's key actually holds: its scopes capped by the owner's role (owners have clearance 4). */
function effective(caller: Caller): { scopes: Set<Scope>; tlpClearance: number } {
  return { scopes: new Set(caller.scopes.filter((s) => scopesOfRole[caller.ownerRole].includes(s))), tlpClearance: caller.tlpClearance };
}

function beyond(holder: { scopes: Set<Scope>; tlpClearance: number }, user: Target): ErrorCode | undefined {
  if (!scopesOfRole[user.role].every((s) => holder.scopes.has(s))) return "missing_scope";
  if (user.tlpClearance > holder.tlpClearance) return "tlp_restricted";
  return undefined;
}

export function expectedUpdate(caller: Caller, target: Target, change: UserPatch): ErrorCode | "ok" {
  const holder = effective(caller);
  if (!holder.scopes.has("users:write")) return "missing_scope";
  const after: Target = { role: change.patch.role ?? target.role, tlpClearance: change.patch.tlpClearance ?? target.tlpClearance };
  const refusal = beyond(holder, target) ?? beyond(holder, after);
  if (refusal) return refusal;
  if (change.patch.password !== undefined && !holder.scopes.has("org:admin")) return "missing_scope";
  return "ok";
}

export function expectedCreate(caller: Caller, created: Target): ErrorCode | "ok" {
  const holder = effective(caller);
  if (!holder.scopes.has("users:write")) return "missing_scope";
  return beyond(holder, created) ?? "ok";
}

export const updateCells = callers.flatMap((caller) =>
  targets.flatMap((target) =>
    changes.map((change) => ({
      caller,
      target,
      change,
      expected: expectedUpdate(caller, target, change),
      name: `${caller.name} on a ${target.role} of clearance ${target.tlpClearance}: ${change.name}`,
    })),
  ),
);

export const createCells = callers.flatMap((caller) =>
  targets.map((created) => ({
    caller,
    created,
    expected: expectedCreate(caller, created),
    name: `${caller.name} creates a ${created.role} of clearance ${created.tlpClearance}`,
  })),
);

/** Both outcomes must occur for every change, or the matrix would prove nothing about it. */
export function outcomesByChange(): Map<string, Set<string>> {
  const seen = new Map<string, Set<string>>();
  for (const cell of updateCells) {
    const set = seen.get(cell.change.name) ?? new Set<string>();
    set.add(cell.expected === "ok" ? "ok" : "refused");
    seen.set(cell.change.name, set);
  }
  return seen;
}
