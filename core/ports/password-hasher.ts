/**
 * Slow crypto is a port: the services hash and check passwords only through this, so an embedder
 * can bring its own (argon2, a hardware module) and the tests can use a fast one instead of
 * spending their time in scrypt. Production builds default to `scryptPasswordHasher`.
 */
export interface PasswordHasher {
  /** A salted, self-describing hash of the password (never the password). */
  hash(password: string): Promise<string>;
  /** True when the password matches the stored hash; false for a hash of an unknown format. */
  verify(password: string, stored: string): Promise<boolean>;
}
