// Item 2 and the clearance part of item 12 of issue 12 over HTTP: the same matrix as
// test/core/grants-users.test.ts through PATCH and POST /api/v1/users, and sessions that end when
// a password or a status changes.
import { beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode, StoredUser } from "../../core/index.js";
import { apiRoutes, createCaseKitApp } from "../../server/index.js";
import type { ApiRoute } from "../../server/index.js";
import { callers, createCells, updateCells } from "../core/grants-matrix.js";
import type { Caller } from "../core/grants-matrix.js";
import { addKey, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";
import { actingAs, bearer, expectProblem, inProcess } from "./http.js";
import type { Answer, Transport } from "./http.js";

const label = (route: Pick<ApiRoute, "method" | "path">): string => `${route.method} ${route.path.replace(/:(\w+)/g, "{$1}")}`;

/** Every route that creates or changes a user or a key, and the test that holds it to the rule. */
const grantingRoutes: Record<string, string> = {
  "POST /users": "this file: every caller × new user",
  "PATCH /users/{id}": "this file: every caller × target × change",
  "POST /api-keys": "test/server/grants-keys.test.ts",
  "DELETE /api-keys/{id}": "test/server/grants-keys.test.ts",
  "POST /api-keys/{id}/suspend": "test/server/grants-keys.test.ts",
  "POST /api-keys/{id}/resume": "test/server/grants-keys.test.ts",
  "POST /api-keys/{id}/revoke": "test/server/grants-keys.test.ts",
};

const statusOf: Partial<Record<ErrorCode | "ok", number>> = { ok: 200, missing_scope: 403, tlp_restricted: 403 };

function expectOutcome(answer: Answer, expected: ErrorCode | "ok"): void {
  if (expected === "ok") expect(answer.status, answer.text).toBe(200);
  else expectProblem(answer, statusOf[expected]!, expected);
}

async function world(): Promise<{ t: TestKit; client: Transport; keys: Map<Caller, string> }> {
  const t = await makeTestKit();
  const client = inProcess(createCaseKitApp(t.kit));
  const keys = new Map<Caller, string>();
  for (const caller of callers) {
    const owner = await addUser(t.kit, t.organizationId, { role: caller.ownerRole, tlpClearance: 4 });
    // Unlimited keys inserted directly: a thousand requests must meet the rule, not the rate limit.
    keys.set(caller, (await addKey(t.kit, owner, { scopes: [...caller.scopes], tlpClearance: caller.tlpClearance, tier: "unlimited" })).secret);
  }
  return { t, client, keys };
}

describe("the route table", () => {
  it("every route that writes users or keys is held to the grant rule by a test", () => {
    const writing = apiRoutes.filter((r) => r.method !== "GET" && /^\/(users|api-keys)\b/.test(r.path)).map(label);
    expect(writing.sort()).toEqual(Object.keys(grantingRoutes).sort());
  });
});

describe("PATCH /api/v1/users/{id}: every caller × target × change", () => {
  let w: Awaited<ReturnType<typeof world>>;
  beforeAll(async () => {
    w = await world();
  });

  for (const cell of updateCells) {
    it(`${cell.name} → ${cell.expected}`, async () => {
      const target = await addUser(w.t.kit, w.t.organizationId, { role: cell.target.role, tlpClearance: cell.target.tlpClearance });
      const before = await w.t.kit.storage.read((tx) => tx.users.findById(w.t.organizationId, target.id));
      const answer = await actingAs(w.client, w.keys.get(cell.caller)!).patch(`/api/v1/users/${target.id}`, cell.change.patch);
      expectOutcome(answer, cell.expected);
      const after = (await w.t.kit.storage.read((tx) => tx.users.findById(w.t.organizationId, target.id))) as StoredUser;
      if (cell.expected === "ok") expect(answer.body).not.toHaveProperty("passwordHash");
      else expect(after).toStrictEqual(before);
    });
  }
});

describe("POST /api/v1/users: every caller × new user", () => {
  let w: Awaited<ReturnType<typeof world>>;
  beforeAll(async () => {
    w = await world();
  });

  let n = 0;
  for (const cell of createCells) {
    it(`${cell.name} → ${cell.expected}`, async () => {
      const email = `http${++n}@acme.test`;
      const body = { email, name: "Created over HTTP", role: cell.created.role, tlpClearance: cell.created.tlpClearance };
      expectOutcome(await actingAs(w.client, w.keys.get(cell.caller)!).post("/api/v1/users", body), cell.expected);
      expect(await w.t.kit.storage.read((tx) => tx.users.findByEmail(email))).toSatisfy((found) => (cell.expected === "ok") === (found !== null));
    });
  }
});

describe("self-changes over HTTP", () => {
  it("the only admin cannot lower their own clearance (409 conflict) and still creates cases at the default TLP", async () => {
    const t = await makeTestKit();
    const admin = actingAs(inProcess(createCaseKitApp(t.kit)), t.adminKey);
    expectProblem(await admin.patch(`/api/v1/users/${t.admin.userId}`, { tlpClearance: 1 }), 409, "conflict");
    expectProblem(await admin.patch(`/api/v1/users/${t.admin.userId}`, { role: "analyst" }), 409, "conflict");
    expect((await admin.get(`/api/v1/users/${t.admin.userId}`)).body).toMatchObject({ tlpClearance: 4, role: "admin" });
    expect((await admin.post("/api/v1/cases", { title: "Default TLP", severity: 2 })).status).toBe(200);
  });
});

describe("sessions end when a password or a status changes", () => {
  async function signedIn(client: Transport, email: string, password: string): Promise<{ cookie: [string, string]; me: () => Promise<Answer> }> {
    const answer = await client.send("POST", "/account/sign-in", { body: { email, password } });
    expect(answer.status, answer.text).toBe(200);
    const token = /casekit_session=([^;]+)/.exec(answer.headers.get("set-cookie") ?? "")?.[1];
    const cookie: [string, string] = ["Cookie", `casekit_session=${token}`];
    return { cookie, me: () => client.send("GET", "/account/me", { headers: [cookie] }) };
  }

  it("a new password or status refuses the user's sessions on their next request; other changes and other users' sessions stay", async () => {
    const t = await makeTestKit();
    const client = inProcess(createCaseKitApp(t.kit));
    const admin = actingAs(client, t.adminKey);
    const password = "the analyst's own password";
    const created = async (email: string) => (await admin.post("/api/v1/users", { email, name: email, role: "analyst", password })).body as { id: string };

    const ana = await created("ana@acme.test");
    await created("bob@acme.test");
    const anaSession = await signedIn(client, "ana@acme.test", password);
    const bobSession = await signedIn(client, "bob@acme.test", password);

    expect((await admin.patch(`/api/v1/users/${ana.id}`, { name: "Ana", role: "read_only", tlpClearance: 2 })).status).toBe(200);
    expect((await anaSession.me()).status).toBe(200); // role and clearance apply per request; the session stays

    expect((await admin.patch(`/api/v1/users/${ana.id}`, { password: "reset by the admin, 2026" })).status).toBe(200);
    expectProblem(await anaSession.me(), 401, "invalid_session");
    expect((await bobSession.me()).status).toBe(200);

    const again = await signedIn(client, "ana@acme.test", "reset by the admin, 2026");
    expect((await admin.patch(`/api/v1/users/${ana.id}`, { status: "locked" })).status).toBe(200);
    expect((await admin.patch(`/api/v1/users/${ana.id}`, { status: "active" })).status).toBe(200);
    expectProblem(await again.me(), 401, "invalid_session"); // reactivation does not bring the session back
    expect((await bobSession.me()).status).toBe(200);
    expect((await client.send("GET", "/api/v1/users", { headers: bearer(t.adminKey) })).status).toBe(200);
  });
});
