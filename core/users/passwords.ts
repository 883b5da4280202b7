import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import type { PasswordHasher } from "../ports/password-hasher.js";

/**
 * Passwords are stored as scrypt hashes (N=2^15, r=8, p=1, 32-byte salt): slow and salted, and
 * in Node's standard library, so no native dependency is needed. Format:
 * `scrypt$N$r$p$salt$hash` (base64url), so the cost can be raised later without breaking old hashes.
 */
const N = 2 ** 15;
const r = 8;
const p = 1;
const keyLength = 32;

function derive(password: string, salt: Buffer, n: number, rr: number, pp: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keyLength, { N: n, r: rr, p: pp, maxmem: 128 * n * rr * 2 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(32);
  const hash = await derive(password, salt, N, r, p);
  return ["scrypt", N, r, p, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, rr, pp, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !n || !rr || !pp || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(rr), Number(pp));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The default password hasher: scrypt as above. */
export const scryptPasswordHasher: PasswordHasher = { hash: hashPassword, verify: verifyPassword };

/** A generated password for first-run set-up: 24 base64url characters, 144 random bits. */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
