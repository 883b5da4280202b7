export const userStatuses = ["active", "disabled", "locked", "deleted"] as const;
export type UserStatus = (typeof userStatuses)[number];

/** Roles cap what a user's keys may hold (see core/access/scopes.ts). */
export const userRoles = ["admin", "analyst", "read_only"] as const;
export type UserRole = (typeof userRoles)[number];

export interface User {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  role: UserRole;
  status: UserStatus;
  /** Highest TLP the user may see; a key's clearance is capped by it. */
  tlpClearance: number;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
}

/** The stored form adds the password hash, which never leaves the core. */
export interface StoredUser extends User {
  passwordHash: string | null;
}
