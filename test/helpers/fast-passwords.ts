// A fast password hasher for tests only (never shipped): salted SHA-256, so the suite stops
// spending its time in scrypt. Production code defaults to scrypt (core/users/passwords.ts).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { PasswordHasher } from "../../core/index.js";

function digest(password: string, salt: string): Buffer {
  return createHash("sha256").update(salt).update("\0").update(password).digest();
}

export const fastPasswordHasher: PasswordHasher = {
  async hash(password) {
    const salt = randomBytes(16).toString("base64url");
    return `test-sha256$${salt}$${digest(password, salt).toString("base64url")}`;
  },
  async verify(password, stored) {
    const [kind, salt, hash] = stored.split("$");
    if (kind !== "test-sha256" || !salt || !hash) return false;
    const expected = Buffer.from(hash, "base64url");
    const actual = digest(password, salt);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  },
};
