// Bring your own identity: the host says who the caller is, and every access rule still applies.
import { beforeEach, describe, expect, it } from "vitest";
import { CaseKitError } from "../../core/index.js";
import type { CaseKitOptions } from "../../core/index.js";
import { createCaseKitApp } from "../../server/index.js";
import type { AccessLogLine, CaseKitAppOptions, HostIdentity } from "../../server/index.js";
import { addOrganization, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";
import { inProcess } from "./http.js";
import type { Answer, Transport } from "./http.js";

/** The host's own session table: a session header names an identity, or nothing. */
type Sessions = Map<string, HostIdentity | (() => never) | "malformed">;

interface Host extends TestKit {
  sessions: Sessions;
  http: Transport;
  logs: AccessLogLine[];
  hostErrors: unknown[];
  as(session: string, method: string, path: string, body?: unknown): Promise<Answer>;
}

async function makeHost(appOptions: Partial<CaseKitAppOptions> = {}, kitOptions: Pick<CaseKitOptions, "rateLimits"> = {}): Promise<Host> {
  const t = await makeTestKit(kitOptions);
  const sessions: Sessions = new Map();
  const logs: AccessLogLine[] = [];
  const hostErrors: unknown[] = [];
  const app = createCaseKitApp(t.kit, {
    logger: (line) => logs.push(line),
    onUnexpectedError: (error) => hostErrors.push(error),
    identify: async (request) => {
      const entry = sessions.get(request.headers.get("x-session") ?? "");
      if (typeof entry === "function") return entry();
      if (entry === "malformed") return { organizationId: t.organizationId, userId: 42 } as unknown as HostIdentity;
      return entry;
    },
    ...appOptions,
  });
  const http = inProcess(app);
  return {
    ...t,
    sessions,
    http,
    logs,
    hostErrors,
    as: (session, method, path, body) => http.send(method, path, { headers: [["X-Session", session]], ...(body !== undefined ? { body } : {}) }),
  };
}

const validCase = { title: "Phishing wave against finance", severity: 3 };

describe("an app with identify", () => {
  let h: Host;
  beforeEach(async () => {
    h = await makeHost();
  });

  it("serves the identified user: audit and records name them, no key involved", async () => {
    const analyst = await addUser(h.kit, h.organizationId, { role: "analyst" });
    h.sessions.set("s-analyst", { organizationId: h.organizationId, userId: analyst.id });

    const created = await h.as("s-analyst", "POST", "/api/v1/cases", validCase);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ organizationId: h.organizationId, createdBy: analyst.id, number: 1 });
    expect((await h.as("s-analyst", "GET", `/api/v1/cases/${created.body.id}`)).body).toEqual(created.body);

    const line = h.logs.at(-1)!;
    expect(line).toMatchObject({ status: 200, organizationId: h.organizationId });
    expect(line.keyId).toBeUndefined();
  });

  it("refuses a request the host does not recognise, and casekit API keys, with 401", async () => {
    const anonymous = await h.http.send("GET", "/api/v1/cases");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: "missing_credentials", status: 401 });
    expect(anonymous.headers.get("www-authenticate")).toBeTruthy();

    const withKey = await h.http.send("GET", "/api/v1/cases", { headers: [["Authorization", `Bearer ${h.adminKey}`]] });
    expect(withKey.status).toBe(401);
    expect(withKey.body.code).toBe("missing_credentials");

    // Unknown routes stay hidden from the unidentified, as with keys.
    expect((await h.http.send("GET", "/api/v1/nothing-here")).status).toBe(401);
  });

  it("caps scopes by what the host grants and by the user's role (403 missing_scope)", async () => {
    const analyst = await addUser(h.kit, h.organizationId, { role: "analyst" });
    const reader = await addUser(h.kit, h.organizationId, { role: "read_only" });
    h.sessions.set("s-narrow", { organizationId: h.organizationId, userId: analyst.id, scopes: ["cases:read"] });
    h.sessions.set("s-reader", { organizationId: h.organizationId, userId: reader.id, scopes: ["cases:read", "cases:write"] });
    h.sessions.set("s-analyst", { organizationId: h.organizationId, userId: analyst.id });

    for (const session of ["s-narrow", "s-reader"]) {
      const write = await h.as(session, "POST", "/api/v1/cases", validCase);
      expect(write.status).toBe(403);
      expect(write.body.code).toBe("missing_scope");
      expect((await h.as(session, "GET", "/api/v1/cases")).status).toBe(200);
    }
    // An analyst's role has no administrative scopes, whatever the host claims.
    h.sessions.set("s-claims-admin", { organizationId: h.organizationId, userId: analyst.id, scopes: ["webhooks:read"] });
    expect((await h.as("s-claims-admin", "GET", "/api/v1/webhooks")).body.code).toBe("missing_scope");
    expect((await h.as("s-analyst", "POST", "/api/v1/cases", validCase)).status).toBe(200);
  });

  it("keeps tenants apart: another organization's case is 404", async () => {
    const other = await addOrganization(h.kit, "Other SOC");
    const theirs = await h.kit.cases.create(other.admin, validCase);
    const analyst = await addUser(h.kit, h.organizationId, { role: "analyst" });
    h.sessions.set("s-analyst", { organizationId: h.organizationId, userId: analyst.id });

    const read = await h.as("s-analyst", "GET", `/api/v1/cases/${theirs.id}`);
    expect(read.status).toBe(404);
    expect(read.body.code).toBe("not_found");
    expect((await h.as("s-analyst", "PATCH", `/api/v1/cases/${theirs.id}`, { severity: 1 })).status).toBe(404);
    expect((await h.as("s-analyst", "GET", "/api/v1/cases")).body.data).toEqual([]);

    // Claiming the user under the other organization does not work either: the pair must match.
    h.sessions.set("s-crossed", { organizationId: other.organizationId, userId: analyst.id });
    const crossed = await h.as("s-crossed", "GET", "/api/v1/cases");
    expect(crossed.status).toBe(401);
    expect(crossed.body.code).toBe("owner_inactive");
  });

  it("applies TLP: the host's clearance and the user's own clearance both cap it (403 tlp_restricted)", async () => {
    const red = await h.kit.cases.create(h.admin, { ...validCase, tlp: 4 });
    const amberUser = await addUser(h.kit, h.organizationId, { role: "analyst", tlpClearance: 2 });
    const fullUser = await addUser(h.kit, h.organizationId, { role: "analyst" });
    h.sessions.set("s-user-capped", { organizationId: h.organizationId, userId: amberUser.id, tlpClearance: 4 });
    h.sessions.set("s-host-capped", { organizationId: h.organizationId, userId: fullUser.id, tlpClearance: 1 });
    h.sessions.set("s-full", { organizationId: h.organizationId, userId: fullUser.id });

    for (const session of ["s-user-capped", "s-host-capped"]) {
      const read = await h.as(session, "GET", `/api/v1/cases/${red.id}`);
      expect(read.status).toBe(403);
      expect(read.body.code).toBe("tlp_restricted");
      expect((await h.as(session, "GET", "/api/v1/cases")).body.data).toEqual([]);
    }
    expect((await h.as("s-full", "GET", `/api/v1/cases/${red.id}`)).status).toBe(200);
  });

  it("applies the owner's status on every request: a disabled, locked, deleted or unknown user is 401", async () => {
    const user = await addUser(h.kit, h.organizationId, { role: "analyst" });
    h.sessions.set("s-user", { organizationId: h.organizationId, userId: user.id });
    expect((await h.as("s-user", "GET", "/api/v1/cases")).status).toBe(200);

    await h.kit.users.update(h.admin, user.id, { status: "disabled" });
    const disabled = await h.as("s-user", "GET", "/api/v1/cases");
    expect(disabled.status).toBe(401);
    expect(disabled.body.code).toBe("owner_inactive");

    for (const status of ["locked", "deleted"] as const) {
      const other = await addUser(h.kit, h.organizationId, { status });
      h.sessions.set(`s-${status}`, { organizationId: h.organizationId, userId: other.id });
      expect((await h.as(`s-${status}`, "GET", "/api/v1/cases")).body.code).toBe("owner_inactive");
    }

    h.sessions.set("s-ghost", { organizationId: h.organizationId, userId: "user_00000000000000000000000000" });
    const ghost = await h.as("s-ghost", "GET", "/api/v1/cases");
    expect(ghost.status).toBe(401);
    expect(ghost.body.code).toBe("owner_inactive");
  });

  it("applies the organization's policy (403 organization_restricted)", async () => {
    const other = await addOrganization(h.kit, "Partner SOC");
    const analyst = await addUser(h.kit, h.organizationId, { role: "analyst" });
    h.sessions.set("s-analyst", { organizationId: h.organizationId, userId: analyst.id });
    const shared = await h.as("s-analyst", "POST", "/api/v1/cases", { ...validCase, organizations: [other.organizationId] });
    expect(shared.status).toBe(403);
    expect(shared.body.code).toBe("organization_restricted");
  });

  it("turns a failing identify into a 401 problem without details, and reports it to the host", async () => {
    h.sessions.set("s-broken", () => {
      throw new Error("session store unreachable at 10.0.0.5:6379");
    });
    const broken = await h.as("s-broken", "GET", "/api/v1/cases");
    expect(broken.status).toBe(401);
    expect(broken.headers.get("content-type")).toContain("application/problem+json");
    expect(broken.body).toMatchObject({ code: "invalid_session", status: 401 });
    expect(broken.text).not.toContain("10.0.0.5");
    expect(h.hostErrors).toHaveLength(1);
    expect((h.hostErrors[0] as Error).message).toContain("unreachable");

    h.sessions.set("s-ended", () => {
      throw new CaseKitError("invalid_session", "Your session has ended; sign in again");
    });
    const ended = await h.as("s-ended", "GET", "/api/v1/cases");
    expect(ended.status).toBe(401);
    expect(ended.body).toMatchObject({ code: "invalid_session", detail: "Your session has ended; sign in again" });

    // A 403-class CaseKitError from identify is still only a 401: identify cannot authorize.
    h.sessions.set("s-odd", () => {
      throw new CaseKitError("missing_scope");
    });
    expect((await h.as("s-odd", "GET", "/api/v1/cases")).status).toBe(401);

    h.sessions.set("malformed", "malformed");
    const malformed = await h.as("malformed", "GET", "/api/v1/cases");
    expect(malformed.status).toBe(401);
    expect(malformed.body.code).toBe("invalid_session");
    expect(h.hostErrors.some((e) => e instanceof TypeError && e.message.includes("userId"))).toBe(true);
  });

  it("does not serve the account area (casekit passwords and keys are not in use)", async () => {
    const signIn = await h.http.send("POST", "/account/sign-in", { body: { email: "admin@acme.test", password: "whatever-password" } });
    expect(signIn.status).toBe(404);
    expect(signIn.body.code).toBe("route_not_found");
  });
});

describe("rate limits for host identities", () => {
  it("count per user, by the identity's tier, lowered by the organization's policy", async () => {
    const h = await makeHost();
    const [one, two] = [await addUser(h.kit, h.organizationId), await addUser(h.kit, h.organizationId)];
    h.sessions.set("s-one", { organizationId: h.organizationId, userId: one.id, tier: "basic" });
    h.sessions.set("s-two", { organizationId: h.organizationId, userId: two.id, tier: "basic" });

    const answers = [];
    for (let i = 0; i < 11; i++) answers.push(await h.as("s-one", "GET", "/api/v1/cases"));
    expect(answers.slice(0, 10).every((a) => a.status === 200)).toBe(true);
    expect(answers[0]!.headers.get("x-ratelimit-limit")).toBe("10");
    const refused = answers[10]!;
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Another user of the same organization has a budget of their own.
    expect((await h.as("s-two", "GET", "/api/v1/cases")).status).toBe(200);

    // The lowest burst a policy may set (rateLimitFloors).
    await h.kit.organizations.updatePolicy(h.admin, { rateLimits: { standard: { burst: 5 } } });
    const three = await addUser(h.kit, h.organizationId);
    h.sessions.set("s-default-tier", { organizationId: h.organizationId, userId: three.id });
    const standard = [];
    for (let i = 0; i < 6; i++) standard.push((await h.as("s-default-tier", "GET", "/api/v1/cases")).status);
    expect(standard).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe("identify with acceptApiKeys", () => {
  it("uses the host's identity when it answers, and casekit keys when it does not", async () => {
    const h = await makeHost({ acceptApiKeys: true });
    const analyst = await addUser(h.kit, h.organizationId, { role: "analyst" });
    h.sessions.set("s-analyst", { organizationId: h.organizationId, userId: analyst.id });

    const bySession = await h.as("s-analyst", "POST", "/api/v1/cases", validCase);
    expect(bySession.body.createdBy).toBe(analyst.id);
    const byKey = await h.http.send("POST", "/api/v1/cases", { headers: [["Authorization", `Bearer ${h.adminKey}`]], body: validCase });
    expect(byKey.status).toBe(200);
    expect(byKey.body.createdBy).toBe(h.admin.userId);
    expect(h.logs.at(-1)!.keyId).toBe(h.admin.keyId);

    expect((await h.http.send("GET", "/api/v1/cases")).body.code).toBe("missing_credentials");
    expect((await h.http.send("POST", "/account/sign-in", { body: { email: "nobody@acme.test", password: "wrong-password-1" } })).status).toBe(401);
  });
});
