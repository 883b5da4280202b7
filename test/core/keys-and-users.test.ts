import { beforeEach, describe, expect, it } from "vitest";
import { dataScopes } from "../../core/index.js";
import type { ErrorCode, Principal, Scope } from "../../core/index.js";
import { addOrganization, makeTestKit, principalFor } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as { code: ErrorCode }).code;
  }
}

describe("API key management", () => {
  let t: TestKit;
  let admin: Principal;
  beforeEach(async () => {
    t = await makeTestKit();
    admin = t.admin;
  });

  it("creates a key owned by the caller, shows the secret once, and the key works", async () => {
    const created = await t.kit.keys.create(admin, { name: "SIEM", scopes: ["cases:read"], tier: "basic" });
    expect(created.key).toMatch(/^ck_live_/);
    expect(created).toMatchObject({ userId: admin.userId, organizationId: t.organizationId, status: "active", tlpClearance: 4, tier: "basic" });
    expect(created).not.toHaveProperty("hash");
    const fetched = await t.kit.keys.get(admin, created.id);
    expect(fetched).not.toHaveProperty("key");
    expect(fetched).not.toHaveProperty("hash");
    expect(created.key.startsWith(fetched.start)).toBe(true);
    const principal = await t.kit.authenticateKey(created.key);
    expect([...principal.scopes]).toEqual(["cases:read"]);
  });

  it("never grants more than the creator holds", async () => {
    const limited = principalFor(admin, { scopes: new Set<Scope>(["keys:write", "cases:read"]), tlpClearance: 2 });
    expect(await codeOf(t.kit.keys.create(limited, { name: "k", scopes: ["cases:write"] }))).toBe("missing_scope");
    expect(await codeOf(t.kit.keys.create(limited, { name: "k", scopes: ["cases:read"], tlpClearance: 3 }))).toBe("tlp_restricted");
    const ok = await t.kit.keys.create(limited, { name: "k", scopes: ["cases:read"] });
    expect(ok.tlpClearance).toBe(2);
    expect(await codeOf(t.kit.keys.create(principalFor(admin, { scopes: new Set<Scope>(["cases:read"]) }), { name: "k", scopes: ["cases:read"] }))).toBe("missing_scope");
  });

  it("suspends, resumes, revokes (for good) and deletes, each refusing the key accordingly", async () => {
    const { id, key } = await t.kit.keys.create(admin, { name: "k", scopes: ["cases:read"] });
    await t.kit.keys.changeStatus(admin, id, "suspend");
    expect(await codeOf(t.kit.authenticateKey(key))).toBe("key_suspended");
    await t.kit.keys.changeStatus(admin, id, "resume");
    expect(await codeOf(t.kit.authenticateKey(key))).toBe("ok");
    await t.kit.keys.changeStatus(admin, id, "revoke");
    expect(await codeOf(t.kit.authenticateKey(key))).toBe("key_revoked");
    expect(await codeOf(t.kit.keys.changeStatus(admin, id, "resume"))).toBe("invalid_transition");
    await t.kit.keys.delete(admin, id);
    expect(await codeOf(t.kit.authenticateKey(key))).toBe("invalid_key");
    expect(await codeOf(t.kit.keys.get(admin, id))).toBe("not_found");
  });

  it("applies the organization's policy: TLP ceiling, tiers, required and bounded expiry", async () => {
    await t.kit.organizations.updatePolicy(admin, { maxKeyTlp: 2, allowedTiers: ["basic", "standard"], requireKeyExpiry: true, maxKeyLifetimeDays: 30 });
    const in10Days = new Date(t.clock.now().getTime() + 10 * 86_400_000).toISOString();
    const in40Days = new Date(t.clock.now().getTime() + 40 * 86_400_000).toISOString();
    expect(await codeOf(t.kit.keys.create(admin, { name: "k", scopes: ["cases:read"], expiresAt: in10Days, tlpClearance: 3 }))).toBe("organization_restricted");
    expect(await codeOf(t.kit.keys.create(admin, { name: "k", scopes: ["cases:read"], expiresAt: in10Days, tier: "enterprise" }))).toBe("organization_restricted");
    expect(await codeOf(t.kit.keys.create(admin, { name: "k", scopes: ["cases:read"] }))).toBe("organization_restricted");
    expect(await codeOf(t.kit.keys.create(admin, { name: "k", scopes: ["cases:read"], expiresAt: in40Days }))).toBe("organization_restricted");
    const ok = await t.kit.keys.create(admin, { name: "k", scopes: ["cases:read"], expiresAt: in10Days });
    expect(ok.tlpClearance).toBe(2);
    const analyst = principalFor(admin, { scopes: new Set<Scope>(["cases:read", "keys:write"]) });
    expect(await codeOf(t.kit.organizations.updatePolicy(analyst, { maxKeyTlp: 4 }))).toBe("missing_scope");
  });

  it("lets a signed-in person manage only their own keys, without keys:write", async () => {
    const analyst = await t.kit.users.create(admin, { email: "ana@acme.test", name: "Ana", password: "correct horse battery", role: "analyst" });
    const session = await t.kit.account.signIn({ email: "ana@acme.test", password: "correct horse battery" });
    const principal = await t.kit.account.authenticateSession(session.token, { requireCsrf: true, csrfToken: session.csrfToken });
    expect(principal.scopes.has("keys:write")).toBe(false);
    const mine = await t.kit.keys.create(principal, { name: "mine", scopes: ["cases:read"] });
    expect(mine.userId).toBe(analyst.id);
    const adminKey = await t.kit.keys.create(admin, { name: "admin's", scopes: ["cases:read"] });
    expect((await t.kit.keys.list(principal, {})).data.map((k) => k.id)).toEqual([mine.id]);
    expect(await codeOf(t.kit.keys.get(principal, adminKey.id))).toBe("not_found");
    expect(await codeOf(t.kit.keys.changeStatus(principal, adminKey.id, "revoke"))).toBe("not_found");
    expect((await t.kit.keys.list(admin, {})).data.map((k) => k.id)).toContain(mine.id);
    // A key alone (not a person) cannot mint keys without keys:write.
    const keyPrincipal = await t.kit.authenticateKey(mine.key);
    expect(await codeOf(t.kit.keys.create(keyPrincipal, { name: "x", scopes: ["cases:read"] }))).toBe("missing_scope");
  });
});

describe("users", () => {
  let t: TestKit;
  beforeEach(async () => {
    t = await makeTestKit();
  });

  it("creates users with a generated password shown once, never returning hashes", async () => {
    const user = await t.kit.users.create(t.admin, { email: "Bob@Acme.test", name: "Bob" });
    expect(user.email).toBe("bob@acme.test");
    expect(user.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(user).not.toHaveProperty("passwordHash");
    expect(await t.kit.users.get(t.admin, user.id)).not.toHaveProperty("password");
    expect(await codeOf(t.kit.users.create(t.admin, { email: "bob@acme.test", name: "Again" }))).toBe("conflict");
  });

  it("a status change stops the user's keys on the very next request, and reactivation restores them", async () => {
    const user = await t.kit.users.create(t.admin, { email: "eve@acme.test", name: "Eve", role: "analyst" });
    const session = await t.kit.account.signIn({ email: "eve@acme.test", password: user.password! });
    const eve = await t.kit.account.authenticateSession(session.token, { requireCsrf: false });
    const { key } = await t.kit.keys.create(eve, { name: "eve", scopes: ["cases:read"] });
    for (const status of ["disabled", "locked", "deleted"] as const) {
      if (status !== "disabled") await t.kit.users.update(t.admin, user.id, { status: "active" });
      await t.kit.users.update(t.admin, user.id, { status });
      expect(await codeOf(t.kit.authenticateKey(key))).toBe("owner_inactive");
      // The first status change ended the session for good; reactivation does not bring it back.
      expect(await codeOf(t.kit.account.authenticateSession(session.token, { requireCsrf: false }))).toBe("invalid_session");
    }
    expect(await codeOf(t.kit.users.update(t.admin, user.id, { status: "active" }))).toBe("invalid_transition");
  });

  it("guards roles, clearance and self-changes", async () => {
    // Holds every analyst scope, so only the role and the clearance are beyond it.
    const limited = principalFor(t.admin, { scopes: new Set<Scope>([...dataScopes, "users:write"]), tlpClearance: 2 });
    expect(await codeOf(t.kit.users.create(limited, { email: "a@acme.test", name: "A", role: "admin" }))).toBe("missing_scope");
    expect(await codeOf(t.kit.users.create(limited, { email: "a@acme.test", name: "A", tlpClearance: 3 }))).toBe("tlp_restricted");
    expect(await codeOf(t.kit.users.update(t.admin, t.admin.userId, { status: "disabled" }))).toBe("conflict");
    const other = await addOrganization(t.kit, "Other");
    expect(await codeOf(t.kit.users.get(t.admin, other.admin.userId))).toBe("not_found");
    expect((await t.kit.users.list(t.admin, {})).data.map((u) => u.organizationId)).toEqual([t.organizationId]);
  });
});

describe("account sign-in", () => {
  it("refuses wrong passwords alike for known and unknown emails, throttles after five, and audits", async () => {
    const t = await makeTestKit();
    await t.kit.users.create(t.admin, { email: "sam@acme.test", name: "Sam", password: "correct horse battery" });
    expect(await codeOf(t.kit.account.signIn({ email: "nobody@acme.test", password: "x" }))).toBe("invalid_credentials");
    for (let i = 0; i < 5; i++) expect(await codeOf(t.kit.account.signIn({ email: "sam@acme.test", password: "wrong" }))).toBe("invalid_credentials");
    let retry: number | undefined;
    try {
      await t.kit.account.signIn({ email: "sam@acme.test", password: "correct horse battery" });
    } catch (error) {
      expect((error as { code: string }).code).toBe("rate_limited");
      retry = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
    }
    expect(retry).toBe(900);
    t.clock.advance(15 * 60 * 1000);
    const session = await t.kit.account.signIn({ email: "sam@acme.test", password: "correct horse battery" });
    expect(session.token).not.toBe(session.csrfToken);
    const audit = await t.kit.storage.read((tx) => tx.audit.list(t.organizationId, { limit: 20 }));
    // The known account's five failures, each its own event; the unknown email's one (aggregated: audit-refusals.test.ts).
    const failed = audit.filter((a) => a.action === "user.sign_in_failed");
    expect(failed.every((a) => a.outcome === "failure")).toBe(true);
    expect(failed.filter((a) => a.target.id !== "unknown").map((a) => a.target)).toEqual(Array(5).fill({ type: "user", id: audit.find((a) => a.action === "user.signed_in")!.target.id }));
    expect(failed.filter((a) => a.target.id === "unknown")).toHaveLength(1);
    expect(audit.some((a) => a.action === "user.signed_in")).toBe(true);
  });

  it("rejects a missing or wrong CSRF token, expired sessions, and signed-out sessions", async () => {
    const t = await makeTestKit();
    await t.kit.users.create(t.admin, { email: "sam@acme.test", name: "Sam", password: "correct horse battery" });
    const s = await t.kit.account.signIn({ email: "sam@acme.test", password: "correct horse battery" });
    expect(await codeOf(t.kit.account.authenticateSession(s.token, { requireCsrf: true }))).toBe("csrf_rejected");
    expect(await codeOf(t.kit.account.authenticateSession(s.token, { requireCsrf: true, csrfToken: "x" }))).toBe("csrf_rejected");
    const principal = await t.kit.account.authenticateSession(s.token, { requireCsrf: true, csrfToken: s.csrfToken });
    await t.kit.account.signOut(principal);
    expect(await codeOf(t.kit.account.authenticateSession(s.token, { requireCsrf: false }))).toBe("invalid_session");
    const s2 = await t.kit.account.signIn({ email: "sam@acme.test", password: "correct horse battery" });
    t.clock.advance(8 * 60 * 60 * 1000);
    expect(await codeOf(t.kit.account.authenticateSession(s2.token, { requireCsrf: false }))).toBe("invalid_session");
  });
});
