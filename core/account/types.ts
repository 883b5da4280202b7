/** A signed-in person's session in the account area. Token and CSRF token are stored as hashes. */
export interface Session {
  id: string;
  organizationId: string;
  userId: string;
  tokenHash: string;
  csrfHash: string;
  createdAt: string;
  expiresAt: string;
}

/** Failed sign-ins per email address, whether or not the address belongs to anyone. */
export interface SignInThrottle {
  email: string;
  failures: number;
  windowStartedAt: string;
  blockedUntil: string | null;
}
