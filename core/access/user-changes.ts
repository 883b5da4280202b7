import { CaseKitError } from "../errors.js";
import type { UserRole, UserStatus } from "../users/types.js";
import { requireHolds, rightsOfUser } from "./grants.js";
import type { Principal } from "./principal.js";

interface UserStanding {
  role: UserRole;
  status: UserStatus;
  tlpClearance: number;
}

export interface UserChange {
  /** The user as stored now; null when the change creates them. */
  before: (UserStanding & { id: string }) | null;
  /** The user as the change would leave them. */
  after: UserStanding;
  /** The caller sets the user's password (on an existing user). */
  setsPassword: boolean;
}

/**
 * Who may create or change a user, on top of `users:write`:
 * - nobody changes their own role, status or TLP clearance (409 conflict), so the last admin can
 *   neither lock themselves out nor lower a clearance they could never raise back;
 * - nobody changes a user who holds more than they do (every scope of the user's role, and their
 *   clearance), and nobody gives a role or clearance they do not hold (403, `requireHolds`);
 * - setting an existing user's password takes over that identity, so it also needs `org:admin`.
 */
export function requireUserChange(principal: Principal, change: UserChange): void {
  const { before, after } = change;
  if (before !== null && before.id === principal.userId) {
    if (after.role !== before.role || after.status !== before.status || after.tlpClearance !== before.tlpClearance) {
      throw new CaseKitError("conflict", "You cannot change your own role, status or TLP clearance");
    }
  }
  if (before !== null) requireHolds(principal, rightsOfUser(before), "change a user with");
  requireHolds(principal, rightsOfUser(after), "grant");
  if (before !== null && change.setsPassword && !principal.scopes.has("org:admin")) {
    throw new CaseKitError("missing_scope", "Setting a user's password needs org:admin");
  }
}
