import { describe, expect, it } from "vitest";
import { createIdGenerator, generateKeySecret, hashKeySecret, isWellFormedKeySecret, ManualClock } from "../../core/index.js";
import { longestKeySecret } from "../../core/keys/secret.js";
import { hashPassword, verifyPassword } from "../../core/users/passwords.js";

describe("ids", () => {
  it("are prefixed, 26 characters of lower-case base32, and strictly increasing under a frozen clock", () => {
    const ids = createIdGenerator(new ManualClock("2026-01-01T00:00:00Z"));
    const made = Array.from({ length: 1000 }, () => ids.next("case"));
    for (const id of made) expect(id).toMatch(/^case_[0-9a-z]{26}$/);
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it("sort by the clock's time across milliseconds", () => {
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const ids = createIdGenerator(clock);
    const first = ids.next("case");
    clock.advance(1);
    expect(ids.next("case") > first).toBe(true);
  });

  it("never go backwards when the clock does", () => {
    const clock = new ManualClock("2026-01-01T00:00:10Z");
    const ids = createIdGenerator(clock);
    const first = ids.next("case");
    clock.advance(-5000);
    expect(ids.next("case") > first).toBe(true);
  });
});

describe("key secrets", () => {
  it("look like ck_<env>_<32 base62>_<6 checksum>", () => {
    const secret = generateKeySecret();
    expect(secret).toMatch(/^ck_live_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    expect(generateKeySecret("test")).toMatch(/^ck_test_/);
    expect(isWellFormedKeySecret(secret)).toBe(true);
  });

  it("are at most longestKeySecret long, the longest environment included, and nothing longer is well formed", () => {
    expect(generateKeySecret("abcdefgh")).toHaveLength(longestKeySecret);
    expect(isWellFormedKeySecret(generateKeySecret("abcdefgh"))).toBe(true);
    expect(isWellFormedKeySecret(generateKeySecret("abcdefghi"))).toBe(false);
  });

  it("reject any one-character change by the checksum, without storage", () => {
    const secret = generateKeySecret();
    for (let i = 8; i < secret.length; i++) {
      if (secret[i] === "_") continue;
      const swapped = secret.slice(0, i) + (secret[i] === "a" ? "b" : "a") + secret.slice(i + 1);
      expect(isWellFormedKeySecret(swapped)).toBe(false);
    }
    expect(isWellFormedKeySecret("")).toBe(false);
    expect(isWellFormedKeySecret("Bearer whatever")).toBe(false);
  });

  it("hash with the deployment secret: same input same hash, another secret another hash", () => {
    const secret = generateKeySecret();
    expect(hashKeySecret(secret, "a".repeat(32))).toBe(hashKeySecret(secret, "a".repeat(32)));
    expect(hashKeySecret(secret, "a".repeat(32))).not.toBe(hashKeySecret(secret, "b".repeat(32)));
    expect(hashKeySecret(secret, "a".repeat(32))).not.toContain(secret);
  });
});

describe("passwords", () => {
  it("hash with a salt and verify", async () => {
    const one = await hashPassword("correct horse battery staple");
    const two = await hashPassword("correct horse battery staple");
    expect(one).not.toBe(two);
    expect(one.startsWith("scrypt$")).toBe(true);
    expect(await verifyPassword("correct horse battery staple", one)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", one)).toBe(false);
    expect(await verifyPassword("x", "garbage")).toBe(false);
  });
});
