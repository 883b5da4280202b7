// Item 9 of issue 12 and the key routes of item 2 over HTTP: POST /api-keys caps the tier by the
// caller's (403 tier_restricted), the default policy refuses unlimited (403
// organization_restricted), and the status and delete routes refuse keys above the caller's rights.
import { beforeAll, describe, expect, it } from "vitest";
import { allScopes, keyTiers } from "../../core/index.js";
import type { KeyTier } from "../../core/index.js";
import { createCaseKitApp } from "../../server/index.js";
import { addKey, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";
import { actingAs, expectProblem, inProcess } from "./http.js";
import type { Transport } from "./http.js";

describe("POST /api/v1/api-keys: the tier", () => {
  let t: TestKit;
  let client: Transport;
  const keyOfTier = new Map<KeyTier, string>();
  beforeAll(async () => {
    t = await makeTestKit();
    client = inProcess(createCaseKitApp(t.kit));
    const owner = await addUser(t.kit, t.organizationId, { role: "admin" });
    for (const tier of keyTiers) keyOfTier.set(tier, (await addKey(t.kit, owner, { tier, scopes: ["keys:write", "cases:read"] })).secret);
  });

  for (const creator of keyTiers) {
    for (const requested of keyTiers.filter((tier) => tier !== "unlimited")) {
      const allowed = keyTiers.indexOf(requested) <= keyTiers.indexOf(creator);
      it(`a ${creator} key asking for a ${requested} key → ${allowed ? "200" : "403 tier_restricted"}`, async () => {
        const answer = await actingAs(client, keyOfTier.get(creator)!).post("/api/v1/api-keys", { name: "tiered", scopes: ["cases:read"], tier: requested });
        if (allowed) expect(answer.body).toMatchObject({ tier: requested });
        else expectProblem(answer, 403, "tier_restricted");
      });
    }
  }

  it("the default policy refuses unlimited even to the unlimited key casekit init printed", async () => {
    expectProblem(await actingAs(client, t.adminKey).post("/api/v1/api-keys", { name: "k", scopes: ["cases:read"], tier: "unlimited" }), 403, "organization_restricted");
    expect((await actingAs(client, t.adminKey).get("/api/v1/organization")).body.policy.allowedTiers).not.toContain("unlimited");
  });
});

describe("the key routes that change a key", () => {
  it("refuse a key above the caller's scopes or clearance (403) and change nothing; keys within them are managed", async () => {
    const t = await makeTestKit();
    const client = inProcess(createCaseKitApp(t.kit));
    const owner = await addUser(t.kit, t.organizationId, { role: "admin" });
    const manager = actingAs(client, (await addKey(t.kit, owner, { scopes: ["keys:write", "cases:read"], tlpClearance: 1 })).secret);
    const victim = await addKey(t.kit, owner, { scopes: [...allScopes], tlpClearance: 4 });
    for (const action of ["suspend", "revoke"]) expectProblem(await manager.post(`/api/v1/api-keys/${victim.key.id}/${action}`), 403, "missing_scope");
    expectProblem(await manager.delete(`/api/v1/api-keys/${victim.key.id}`), 403, "missing_scope");
    const above = await addKey(t.kit, owner, { scopes: ["cases:read"], tlpClearance: 3, status: "suspended" });
    expectProblem(await manager.post(`/api/v1/api-keys/${above.key.id}/resume`), 403, "tlp_restricted");
    expect((await actingAs(client, t.adminKey).get(`/api/v1/api-keys/${victim.key.id}`)).body.status).toBe("active");
    expect((await actingAs(client, t.adminKey).get(`/api/v1/api-keys/${above.key.id}`)).body.status).toBe("suspended");

    const within = await addKey(t.kit, owner, { scopes: ["cases:read"], tlpClearance: 1 });
    for (const action of ["suspend", "resume", "revoke"]) expect((await manager.post(`/api/v1/api-keys/${within.key.id}/${action}`)).status).toBe(200);
    expect((await manager.delete(`/api/v1/api-keys/${within.key.id}`)).status).toBe(200);
  });
});
