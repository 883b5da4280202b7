import { beforeEach, describe, expect, it } from "vitest";
import { generateKeySecret } from "../../core/index.js";
import type { ErrorCode } from "../../core/index.js";
import { addKey, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as { code: ErrorCode }).code;
  }
}

describe("key authentication", () => {
  let t: TestKit;
  beforeEach(async () => {
    t = await makeTestKit();
  });

  it("turns the init key into an admin principal of its organization", async () => {
    const principal = await t.kit.authenticateKey(t.adminKey, { ip: "203.0.113.9" });
    expect(principal.organizationId).toBe(t.organizationId);
    expect(principal.role).toBe("admin");
    expect(principal.tlpClearance).toBe(4);
    expect(principal.scopes.has("cases:write")).toBe(true);
    expect(principal.origin?.ip).toBe("203.0.113.9");
  });

  it("refuses malformed and unknown keys as invalid_key", async () => {
    expect(await codeOf(t.kit.authenticateKey("nonsense"))).toBe("invalid_key");
    expect(await codeOf(t.kit.authenticateKey(generateKeySecret()))).toBe("invalid_key");
    // A key that works, with anything after it, or a megabyte of junk: refused without being hashed.
    expect(await codeOf(t.kit.authenticateKey(t.adminKey))).toBe("ok");
    expect(await codeOf(t.kit.authenticateKey(`${t.adminKey}x`))).toBe("invalid_key");
    expect(await codeOf(t.kit.authenticateKey("x".repeat(1 << 20)))).toBe("invalid_key");
  });

  it("refuses revoked, suspended and expired keys with their own codes", async () => {
    const owner = await addUser(t.kit, t.organizationId);
    const revoked = await addKey(t.kit, owner, { status: "revoked" });
    const suspended = await addKey(t.kit, owner, { status: "suspended" });
    const expired = await addKey(t.kit, owner, { expiresAt: "2026-03-01T12:00:00.000Z" });
    const later = await addKey(t.kit, owner, { expiresAt: "2026-03-01T12:00:01.000Z" });
    expect(await codeOf(t.kit.authenticateKey(revoked.secret))).toBe("key_revoked");
    expect(await codeOf(t.kit.authenticateKey(suspended.secret))).toBe("key_suspended");
    expect(await codeOf(t.kit.authenticateKey(expired.secret))).toBe("key_expired");
    expect(await codeOf(t.kit.authenticateKey(later.secret))).toBe("ok");
    t.clock.advance(1000);
    expect(await codeOf(t.kit.authenticateKey(later.secret))).toBe("key_expired");
  });

  it("refuses keys whose owner is disabled, locked or deleted", async () => {
    for (const status of ["disabled", "locked", "deleted"] as const) {
      const owner = await addUser(t.kit, t.organizationId, { status });
      const { secret } = await addKey(t.kit, owner);
      expect(await codeOf(t.kit.authenticateKey(secret))).toBe("owner_inactive");
    }
  });

  it("caps scopes by the owner's role and clearance by the owner's", async () => {
    const reader = await addUser(t.kit, t.organizationId, { role: "read_only", tlpClearance: 1 });
    const { secret } = await addKey(t.kit, reader, { scopes: ["cases:read", "cases:write", "keys:write"], tlpClearance: 3 });
    const principal = await t.kit.authenticateKey(secret);
    expect([...principal.scopes]).toEqual(["cases:read"]);
    expect(principal.tlpClearance).toBe(1);
  });

  it("records last use at most once a minute", async () => {
    const owner = await addUser(t.kit, t.organizationId);
    const { secret, key } = await addKey(t.kit, owner);
    const lastUsed = async () => (await t.kit.storage.read((tx) => tx.apiKeys.findByHash(key.hash)))!.key.lastUsedAt;
    await t.kit.authenticateKey(secret);
    expect(await lastUsed()).toBe("2026-03-01T12:00:00.000Z");
    t.clock.advance(30_000);
    await t.kit.authenticateKey(secret);
    expect(await lastUsed()).toBe("2026-03-01T12:00:00.000Z");
    t.clock.advance(30_000);
    await t.kit.authenticateKey(secret);
    expect(await lastUsed()).toBe("2026-03-01T12:01:00.000Z");
  });

  it("a secret it has seen (its key hash remembered) is refused the moment its key is suspended or revoked, and a near miss of it never passes", async () => {
    const owner = await addUser(t.kit, t.organizationId);
    const { secret, key } = await addKey(t.kit, owner);
    const admin = await t.kit.authenticateKey(t.adminKey);
    expect(await codeOf(t.kit.authenticateKey(secret))).toBe("ok");
    expect(await codeOf(t.kit.authenticateKey(secret))).toBe("ok");
    await t.kit.keys.changeStatus(admin, key.id, "suspend");
    expect(await codeOf(t.kit.authenticateKey(secret))).toBe("key_suspended");
    await t.kit.keys.changeStatus(admin, key.id, "resume");
    expect(await codeOf(t.kit.authenticateKey(secret))).toBe("ok");
    await t.kit.keys.changeStatus(admin, key.id, "revoke");
    expect(await codeOf(t.kit.authenticateKey(secret))).toBe("key_revoked");
    // Another secret with the same start is another key hash: unknown.
    const other = `${secret.slice(0, -8)}${secret.slice(-8).split("").reverse().join("")}`;
    expect(await codeOf(t.kit.authenticateKey(other))).toBe("invalid_key");
  });
});
