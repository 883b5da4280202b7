import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../../core/index.js";
import { refusalKindsPerWindow, refusalWindowMs } from "../../core/index.js";
import { addKey, addOrganization, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

/** Every audit event of the first organization, oldest first. */
async function allEvents(t: TestKit): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await t.kit.audit.list(t.admin, { limit: 500, ...(cursor ? { cursor } : {}) });
    events.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return events.reverse();
}

const changeOf = (event: AuditEvent, path: string) => event.changes.find((c) => c.path === path)?.after;
const countOf = (events: AuditEvent[]) => events.reduce((sum, e) => sum + (changeOf(e, "count") as number), 0);
const codeOf = (promise: Promise<unknown>) => promise.then(() => "ok", (error: { code: string }) => error.code);

describe("refusals are audited, aggregated", () => {
  it("a flood of 10 000 failed key authentications costs bounded rows, counts exactly, and the chain verifies", async () => {
    const t = await makeTestKit();
    const owner = await addUser(t.kit, t.organizationId);
    // More kinds than one window writes at once: the rest are counted as suppressed.
    const keyCount = refusalKindsPerWindow + 50;
    const keys = [];
    for (let i = 0; i < keyCount; i++) keys.push((await addKey(t.kit, owner, { status: i % 2 === 0 ? "revoked" : "suspended" })).secret);
    const before = (await allEvents(t)).length;

    const n = 10_000;
    const stepMs = 15; // 150 s in all: three windows
    for (let i = 0; i < n; i++) {
      expect(await codeOf(t.kit.authenticateKey(keys[i % keyCount]!, { requestId: `req_${i}`, ip: "203.0.113.9" }))).toMatch(/^key_(revoked|suspended)$/);
      t.clock.advance(stepMs);
    }
    await t.kit.refusals.flush({ all: true });

    const refusals = (await allEvents(t)).slice(before).filter((e) => e.action === "key.authentication_failed");
    const windows = Math.ceil((n * stepMs) / refusalWindowMs) + 1;
    // Per window: each kind's first and its count, and one suppressed event per (action, reason).
    expect(refusals.length).toBeLessThanOrEqual(windows * (2 * refusalKindsPerWindow + 2));
    expect(countOf(refusals)).toBe(n);
    expect(countOf(refusals.filter((e) => changeOf(e, "reason") === "key_revoked"))).toBe(n / 2);
    expect(refusals.every((e) => e.outcome === "denied")).toBe(true);
    const suppressed = refusals.filter((e) => changeOf(e, "suppressed") === true);
    expect(suppressed.length).toBeGreaterThan(0);
    expect(suppressed.every((e) => e.actor.type === "system" && e.target.type === "organization")).toBe(true);
    // A first refusal names the key, whom it acts for, and the request it came with.
    const first = refusals[0]!;
    expect(first).toMatchObject({ actor: { type: "apiKey", onBehalfOf: owner.id }, target: { type: "key" }, requestId: "req_0", ip: "203.0.113.9" });
    expect(changeOf(first, "count")).toBe(1);
    expect(await t.kit.audit.verify(t.admin)).toMatchObject({ ok: true });
  });

  it("a kind's repeats in one window are one event, written when the next window opens or at flush", async () => {
    const t = await makeTestKit();
    const owner = await addUser(t.kit, t.organizationId);
    const { secret, key } = await addKey(t.kit, owner, { expiresAt: "2026-03-01T11:00:00.000Z" });
    const start = (await allEvents(t)).length;
    for (let i = 0; i < 5; i++) expect(await codeOf(t.kit.authenticateKey(secret))).toBe("key_expired");
    let events = (await allEvents(t)).slice(start);
    expect(events.map((e) => [e.action, changeOf(e, "reason"), changeOf(e, "count")])).toEqual([["key.authentication_failed", "key_expired", 1]]);
    // Nothing is written while the window is open…
    await t.kit.refusals.flush();
    expect((await allEvents(t)).slice(start)).toHaveLength(1);
    // …and the next window's first refusal writes the count of the window before.
    t.clock.advance(refusalWindowMs);
    expect(await codeOf(t.kit.authenticateKey(secret))).toBe("key_expired");
    events = (await allEvents(t)).slice(start);
    expect(events.map((e) => changeOf(e, "count"))).toEqual([1, 4, 1]);
    expect(events[1]!.target).toEqual({ type: "key", id: key.id });
    expect(changeOf(events[1]!, "window")).toBe("2026-03-01T12:01:00.000Z");
    // A window's count is written by the host's flush once it has closed.
    expect(await codeOf(t.kit.authenticateKey(secret))).toBe("key_expired");
    t.clock.advance(refusalWindowMs);
    await t.kit.refusals.flush();
    expect((await allEvents(t)).slice(start).map((e) => changeOf(e, "count"))).toEqual([1, 4, 1, 1]);
  });

  it("a clock set back counts into the window a kind already has: counts stay exact", async () => {
    const t = await makeTestKit();
    const owner = await addUser(t.kit, t.organizationId);
    const { secret } = await addKey(t.kit, owner, { status: "suspended" });
    const start = (await allEvents(t)).length;
    t.clock.advance(2 * refusalWindowMs);
    expect(await codeOf(t.kit.authenticateKey(secret))).toBe("key_suspended");
    t.clock.advance(-2 * refusalWindowMs);
    for (let i = 0; i < 3; i++) expect(await codeOf(t.kit.authenticateKey(secret))).toBe("key_suspended");
    await t.kit.refusals.flush({ all: true });
    expect((await allEvents(t)).slice(start).map((e) => changeOf(e, "count"))).toEqual([1, 3]);
  });

  it("a secret matching no key names no organization and is not audited", async () => {
    const t = await makeTestKit();
    const start = (await allEvents(t)).length;
    expect(await codeOf(t.kit.authenticateKey("ck_live_notakey"))).toBe("invalid_key");
    await t.kit.refusals.flush({ all: true });
    expect((await allEvents(t)).slice(start)).toHaveLength(0);
  });

  it("a disabled owner's key, a failed sign-in for an unknown email and a CSRF rejection are audited", async () => {
    const t = await makeTestKit();
    const owner = await addUser(t.kit, t.organizationId, { email: "sam@acme.test", status: "disabled" });
    const { secret } = await addKey(t.kit, owner);
    expect(await codeOf(t.kit.authenticateKey(secret))).toBe("owner_inactive");
    expect(await codeOf(t.kit.account.signIn({ email: "nobody@acme.test", password: "guess" }, { ip: "198.51.100.7" }))).toBe("invalid_credentials");
    await t.kit.users.create(t.admin, { email: "kim@acme.test", name: "Kim", password: "correct horse battery" });
    const session = await t.kit.account.signIn({ email: "kim@acme.test", password: "correct horse battery" });
    expect(await codeOf(t.kit.account.authenticateSession(session.token, { requireCsrf: true, csrfToken: "forged" }))).toBe("csrf_rejected");
    // Signing out is audited as signing in is.
    await t.kit.account.signOut(await t.kit.account.authenticateSession(session.token, { requireCsrf: true, csrfToken: session.csrfToken }));
    expect((await allEvents(t)).at(-1)).toMatchObject({ action: "user.signed_out", actor: { type: "user", id: session.user.id }, target: { type: "user", id: session.user.id }, outcome: "success" });
    const denied = (await allEvents(t)).filter((e) => e.changes.some((c) => c.path === "reason"));
    expect(denied.map((e) => [e.action, e.target.type, changeOf(e, "reason")])).toEqual([
      ["key.authentication_failed", "key", "owner_inactive"],
      ["user.sign_in_failed", "user", "invalid_credentials"],
      ["session.csrf_rejected", "session", "csrf_rejected"],
    ]);
    expect(denied.map((e) => e.outcome)).toEqual(["denied", "failure", "denied"]);
    expect(denied[1]).toMatchObject({ actor: { type: "user", id: null }, target: { id: "unknown" }, ip: "198.51.100.7" });
  });

  it("with several organizations an unknown email names none: nothing is written", async () => {
    const t = await makeTestKit();
    const other = await addOrganization(t.kit, "Other");
    expect(await codeOf(t.kit.account.signIn({ email: "nobody@acme.test", password: "guess" }))).toBe("invalid_credentials");
    await t.kit.refusals.flush({ all: true });
    expect((await allEvents(t)).filter((e) => e.action === "user.sign_in_failed")).toHaveLength(0);
    expect((await t.kit.audit.list(other.admin, {})).data.filter((e) => e.action === "user.sign_in_failed")).toHaveLength(0);
  });
});
