// Items 2, 9 and the clearance part of 12 of issue 12, against the real `casekit serve` process
// (needs `npm run build`): the take-over path of the attack report, step by step, now refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServeProcess } from "../helpers/serve-process.js";
import type { ServeProcess } from "../helpers/serve-process.js";

interface Reply {
  status: number;
  type: string | null;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  cookie: string | undefined;
}

describe("casekit serve: nobody grants what they do not hold", () => {
  let p: ServeProcess;
  let adminId: string;

  async function call(path: string, options: { method?: string; body?: unknown; key?: string; cookie?: string } = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (options.cookie) headers.cookie = options.cookie;
    const response = await p.request(path, { method: options.method ?? "GET", headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
    const text = await response.text();
    const session = response.headers.getSetCookie().find((c) => c.startsWith("casekit_session="));
    return { status: response.status, type: response.headers.get("content-type"), body: text ? JSON.parse(text) : undefined, cookie: session?.split(";")[0] };
  }

  function expectProblem(reply: Reply, status: number, code: string): void {
    expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
    expect(reply.type).toBe("application/problem+json");
  }

  beforeAll(async () => {
    p = await startServeProcess();
    adminId = (await call(`/api/v1/users?email=${encodeURIComponent(p.email)}`)).body.data[0].id;
  }, 60_000);

  afterAll(async () => {
    await p?.stop();
  });

  it("a users:write key of clearance 1, minted through the API, cannot reset, disable, demote or lower an admin, its own owner included", async () => {
    const minted = await call("/api/v1/api-keys", { method: "POST", body: { name: "user manager", scopes: ["users:read", "users:write"], tlpClearance: 1 } });
    expect(minted.status).toBe(200);
    const key = minted.body.key as string;

    // Another admin of the organization, and the key's own owner (the admin who minted it).
    const peer = await call("/api/v1/users", { method: "POST", body: { email: "peer@process.test", name: "Peer", role: "admin", password: "the peer admin's password" } });
    expect(peer.status).toBe(200);
    for (const change of [{ password: "taken over by a key, 2026" }, { status: "disabled" }, { tlpClearance: 0 }, { role: "analyst" }]) {
      expectProblem(await call(`/api/v1/users/${peer.body.id}`, { method: "PATCH", key, body: change }), 403, "missing_scope");
    }
    expectProblem(await call(`/api/v1/users/${adminId}`, { method: "PATCH", key, body: { password: "taken over by a key, 2026" } }), 403, "missing_scope");
    // On its own owner, status and clearance are self-changes: refused before anything else.
    expectProblem(await call(`/api/v1/users/${adminId}`, { method: "PATCH", key, body: { status: "disabled" } }), 409, "conflict");
    expectProblem(await call(`/api/v1/users/${adminId}`, { method: "PATCH", key, body: { tlpClearance: 0 } }), 409, "conflict");
    expectProblem(await call("/api/v1/users", { method: "POST", key, body: { email: "mole@process.test", name: "Mole", role: "admin", password: "a password the key knows" } }), 403, "missing_scope");

    // The admin is untouched: the attacker's password does not sign in, the real one does.
    expectProblem(await call("/account/sign-in", { method: "POST", body: { email: p.email, password: "taken over by a key, 2026" } }), 401, "invalid_credentials");
    expect((await call("/account/sign-in", { method: "POST", body: { email: p.email, password: p.password } })).status).toBe(200);
    expect((await call(`/api/v1/users/${adminId}`)).body).toMatchObject({ role: "admin", status: "active", tlpClearance: 4 });
    expect((await call(`/api/v1/users/${peer.body.id}`)).body).toMatchObject({ role: "admin", status: "active", tlpClearance: 4 });
    expect((await call("/account/sign-in", { method: "POST", body: { email: "peer@process.test", password: "the peer admin's password" } })).status).toBe(200);
    expect(p.alive()).toBe(true);
  });

  it("no unlimited keys through the API by default, and no key above its creator's tier", async () => {
    expectProblem(await call("/api/v1/api-keys", { method: "POST", body: { name: "k", scopes: ["keys:write", "cases:read"], tier: "unlimited" } }), 403, "organization_restricted");
    const basic = await call("/api/v1/api-keys", { method: "POST", body: { name: "basic manager", scopes: ["keys:write", "cases:read"], tier: "basic" } });
    expect(basic.body.tier).toBe("basic");
    expectProblem(await call("/api/v1/api-keys", { method: "POST", key: basic.body.key, body: { name: "k", scopes: ["cases:read"], tier: "enterprise" } }), 403, "tier_restricted");
    expect((await call("/api/v1/api-keys", { method: "POST", key: basic.body.key, body: { name: "k", scopes: ["cases:read"] } })).body.tier).toBe("basic");
  });

  it("the only admin cannot lower their own clearance, and still creates cases at the default TLP", async () => {
    expectProblem(await call(`/api/v1/users/${adminId}`, { method: "PATCH", body: { tlpClearance: 1 } }), 409, "conflict");
    expect((await call("/api/v1/cases", { method: "POST", body: { title: "Still possible", severity: 2 } })).status).toBe(200);
  });

  it("a password reset ends the user's sessions on their next request", async () => {
    const password = "the analyst's own password";
    const analyst = await call("/api/v1/users", { method: "POST", body: { email: "ana@process.test", name: "Ana", role: "analyst", password } });
    const signedIn = await call("/account/sign-in", { method: "POST", body: { email: "ana@process.test", password } });
    expect((await call("/account/me", { cookie: signedIn.cookie! })).status).toBe(200);
    expect((await call(`/api/v1/users/${analyst.body.id}`, { method: "PATCH", body: { password: "reset by the admin, 2026" } })).status).toBe(200);
    expectProblem(await call("/account/me", { cookie: signedIn.cookie! }), 401, "invalid_session");
  });
});
