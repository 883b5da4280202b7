// examples/vendor-session.ts: the vendor's own sign-in and cookie sessions in front of casekit, no keys.
import { afterEach, describe, expect, it } from "vitest";
import { start } from "../../examples/vendor-session.js";
import { createCaseKitClient } from "../../server/client/index.js";

describe("examples/vendor-session", () => {
  let running: Awaited<ReturnType<typeof start>> | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  /** Signs in at the vendor app and answers the session cookie to send back. */
  async function signIn(username: string, password: string): Promise<{ status: number; cookie: string }> {
    const response = await fetch(`${running!.url}/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ username, password }) });
    await response.body?.cancel();
    return { status: response.status, cookie: (response.headers.get("set-cookie") ?? "").split(";")[0]! };
  }

  it("serves casekit to the vendor's signed-in users, with their roles, and to nobody else", async () => {
    running = await start(0);
    const [alice, bob] = running.users;

    const aliceSession = await signIn(alice!.username, alice!.password);
    expect(aliceSession.status).toBe(200);
    expect(aliceSession.cookie).toMatch(/^vendor_session=/);
    const asAlice = createCaseKitClient({ baseUrl: running.apiBaseUrl, headers: { Cookie: aliceSession.cookie } });
    const created = await asAlice.POST("/cases", { body: { title: "Suspicious OAuth grant", severity: 3 } });
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ number: 1, organizationId: running.organizationId, statusValue: "new" });

    // bob is read-only in the vendor app, so his casekit user is too: he reads, and a write is 403.
    const bobSession = await signIn(bob!.username, bob!.password);
    const asBob = createCaseKitClient({ baseUrl: running.apiBaseUrl, headers: { Cookie: bobSession.cookie } });
    expect((await asBob.GET("/cases")).data!.data.map((c) => c.id)).toEqual([created.data!.id]);
    const write = await asBob.POST("/cases", { body: { title: "Not allowed", severity: 1 } });
    expect(write.response.status).toBe(403);
    expect(write.error).toMatchObject({ status: 403, code: "missing_scope" });
    const patch = await asBob.PATCH("/cases/{id}", { params: { path: { id: created.data!.id } }, body: { severity: 4 } });
    expect(patch.error?.code).toBe("missing_scope");

    // A wrong password gets no session; no session, a forged one, or one ended by sign-out is 401.
    expect((await signIn(bob!.username, "guessed-password")).status).toBe(401);
    const anonymous = await createCaseKitClient({ baseUrl: running.apiBaseUrl }).GET("/cases");
    expect(anonymous.error).toMatchObject({ status: 401, code: "missing_credentials" });
    const forged = await createCaseKitClient({ baseUrl: running.apiBaseUrl, headers: { Cookie: "vendor_session=forged" } }).GET("/cases");
    expect(forged.response.status).toBe(401);
    const signOut = await fetch(`${running.url}/logout`, { method: "POST", headers: { Cookie: bobSession.cookie } });
    expect(signOut.status).toBe(200);
    await signOut.body?.cancel();
    expect((await asBob.GET("/cases")).response.status).toBe(401);
    expect((await asAlice.GET("/cases")).response.status).toBe(200);
  });

  it("accepts no casekit API key and serves no casekit sign-in", async () => {
    running = await start(0);
    const session = await signIn(running.users[0]!.username, running.users[0]!.password);
    const keys = await createCaseKitClient({ baseUrl: running.apiBaseUrl, headers: { Cookie: session.cookie } }).GET("/api-keys");
    // alice is an analyst: key management is an admin's, so even asking is refused.
    expect(keys.error?.code).toBe("missing_scope");
    const withKey = await createCaseKitClient({ baseUrl: running.apiBaseUrl, apiKey: "ck_live_0000000000000000000000000000000_0000000" }).GET("/cases");
    expect(withKey.error).toMatchObject({ status: 401, code: "missing_credentials" });
    // casekit's own sign-in (the account area) is not served either.
    const account = await fetch(`${running.url}/casekit/account/sign-in`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(account.status).toBe(404);
    await account.body?.cancel();
  });
});
