import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { loadHostConfig } from "../../server/config.js";
import { actingAs, bearer, expectProblem, transports } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, userWithKey } from "./world.js";
import type { World } from "./world.js";

const webhooks = `${apiBasePath}/webhooks`;
const neverExisting = "whk_01kaaaaaaaaaaaaaaaaaaaaaaa";
const hook = { name: "SIEM", url: "https://hooks.example.com/casekit", events: ["case.created", "alert.*"] };

describe.each(transports)("webhooks through $name", ({ open }) => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = await open(w);
  });
  afterAll(async () => {
    await client.close();
  });

  const as = (key: string) => actingAs(client, key);

  it("creates a subscription (secret shown once), reads it back masked, changes, lists and deletes it", async () => {
    const admin = as(w.adminKey);
    const created = await admin.post(webhooks, { ...hook, authType: "bearer", authConfig: { token: "receiver-token-123" }, headers: { "X-Team": "soc" } });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ ...hook, method: "POST", authType: "bearer", authConfig: { token: "********" }, headers: { "X-Team": "soc" }, status: "active" });
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.text).not.toContain("receiver-token-123");
    const id = created.body.id as string;

    const read = await admin.get(`${webhooks}/${id}`);
    expect(read.status).toBe(200);
    const { secret, ...withoutSecret } = created.body;
    expect(read.body).toEqual(withoutSecret);
    expect(read.text).not.toContain(secret);

    const changed = await admin.patch(`${webhooks}/${id}`, { name: "SIEM (EU)", maxRetries: 5, description: "EU forwarder" });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: "SIEM (EU)", maxRetries: 5, description: "EU forwarder", authConfig: { token: "********" } });

    const listed = await admin.get(`${webhooks}?limit=500`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((x: { id: string }) => x.id)).toContain(id);
    expect(listed.text).not.toContain(secret);

    const deleted = await admin.delete(`${webhooks}/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.id).toBe(id);
    expectProblem(await admin.get(`${webhooks}/${id}`), 404, "not_found");

    // No secret in any access log line either.
    expect(JSON.stringify(w.logs)).not.toContain(secret);
    expect(JSON.stringify(w.logs)).not.toContain("receiver-token-123");
  });

  it("rotates the secret (a new one, shown once) and sends a test event, visible in the delivery history", async () => {
    const admin = as(w.adminKey);
    const created = await admin.post(webhooks, hook);
    const id = created.body.id as string;
    const rotated = await admin.post(`${webhooks}/${id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(rotated.body.secretStart).toBe(rotated.body.secret.slice(0, 10));

    const test = await admin.post(`${webhooks}/${id}/test`);
    expect(test.status, test.text).toBe(200);
    expect(test.body).toMatchObject({ webhookId: id, eventName: "webhook.test", status: "pending", attemptCount: 0, attempts: [] });

    const history = await admin.get(`${webhooks}/${id}/deliveries?status=pending&status=failed&eventName=webhook.test`);
    expect(history.status, history.text).toBe(200);
    expect(history.body).toEqual({ data: [test.body], nextCursor: null });
    const none = await admin.get(`${webhooks}/${id}/deliveries?status=delivered`);
    expect(none.body).toEqual({ data: [], nextCursor: null });

    // A pending delivery is not redeliverable; an unknown one is 404.
    expectProblem(await admin.post(`${webhooks}/${id}/deliveries/${test.body.id}/redeliver`), 409, "invalid_transition");
    expectProblem(await admin.post(`${webhooks}/${id}/deliveries/dlv_01kaaaaaaaaaaaaaaaaaaaaaaa/redeliver`), 404, "not_found");
  });

  it("refuses hostile URLs with 400 validation_failed on url, and creates nothing", async () => {
    const admin = as(w.adminKey);
    const before = (await admin.get(`${webhooks}?limit=500`)).body.data.length;
    for (const url of ["http://127.0.0.1:3000/", "http://169.254.169.254/latest", "http://[::ffff:127.0.0.1]/", "http://0177.0.0.1/", "gopher://hooks.example.com/"]) {
      const answer = await admin.post(webhooks, { ...hook, url });
      expectProblem(answer, 400, "validation_failed");
      expect(answer.body.errors).toEqual([{ path: "url", message: expect.any(String) }]);
    }
    const created = await admin.post(webhooks, hook);
    expectProblem(await admin.patch(`${webhooks}/${created.body.id}`, { url: "http://192.168.0.1/" }), 400, "validation_failed");
    expect((await admin.get(`${webhooks}/${created.body.id}`)).body.url).toBe(hook.url);
    expect((await admin.get(`${webhooks}?limit=500`)).body.data.length).toBe(before + 1);
  });

  it("answers 400 to bad bodies and queries, 404 to unknown or foreign ids, 403 without the scope", async () => {
    const admin = as(w.adminKey);
    expectProblem(await admin.post(webhooks, { ...hook, createdBy: "user_x" }), 400, "validation_failed");
    expectProblem(await admin.post(webhooks, { ...hook, headers: { "webhook-signature": "v1,forged" } }), 400, "validation_failed");
    expectProblem(await admin.post(webhooks, { ...hook, authType: "basic", authConfig: { token: "x" } }), 400, "validation_failed");
    expectProblem(await client.send("POST", webhooks, { headers: bearer(w.adminKey), body: "{nope" }), 400, "invalid_json");
    expectProblem(await admin.get(`${webhooks}?name=SIEM`), 400, "validation_failed");
    expectProblem(await admin.get(`${webhooks}?cursor=bogus`), 400, "validation_failed");
    expectProblem(await admin.get(`${webhooks}/${neverExisting}`), 404, "not_found");
    expectProblem(await admin.get(`${webhooks}/${neverExisting}/deliveries`), 404, "not_found");

    const created = await admin.post(webhooks, hook);
    expectProblem(await admin.get(`${webhooks}/${created.body.id}/deliveries?status=lost`), 400, "validation_failed");
    expectProblem(await admin.patch(`${webhooks}/${created.body.id}`, {}), 400, "validation_failed");
    const foreign = as(w.other.adminKey);
    expectProblem(await foreign.get(`${webhooks}/${created.body.id}`), 404, "not_found");
    expectProblem(await foreign.post(`${webhooks}/${created.body.id}/test`), 404, "not_found");

    const reader = await userWithKey(w, { scopes: ["webhooks:read"] });
    const readOnly = as(reader.secret);
    expect((await readOnly.get(`${webhooks}/${created.body.id}`)).status).toBe(200);
    expectProblem(await readOnly.post(webhooks, hook), 403, "missing_scope");
    expectProblem(await readOnly.post(`${webhooks}/${created.body.id}/rotate-secret`), 403, "missing_scope");
    expectProblem(await as(w.keys.readOnly).get(webhooks), 403, "missing_scope");
    // An analyst's key cannot hold an administrative scope: the role caps it.
    const analyst = await userWithKey(w, { role: "analyst", scopes: ["webhooks:read", "webhooks:write"] });
    expectProblem(await as(analyst.secret).get(webhooks), 403, "missing_scope");
  });
});

describe("CASEKIT_WEBHOOK_ALLOWLIST", () => {
  const env = { CASEKIT_KEY_HASH_SECRET: "x".repeat(32) };

  it("is read at start-up, empty by default", () => {
    expect(loadHostConfig({ database: ":memory:" }, env).webhookAllowlist).toBe("");
    expect(loadHostConfig({ database: ":memory:" }, { ...env, CASEKIT_WEBHOOK_ALLOWLIST: "127.0.0.1:8787,10.1.0.0/16,[::1]:9000,hooks.internal" }).webhookAllowlist).toBe(
      "127.0.0.1:8787,10.1.0.0/16,[::1]:9000,hooks.internal",
    );
  });

  it("stops the start on a malformed entry, naming it", () => {
    expect(() => loadHostConfig({ database: ":memory:" }, { ...env, CASEKIT_WEBHOOK_ALLOWLIST: "127.0.0.1:99999" })).toThrow(/CASEKIT_WEBHOOK_ALLOWLIST/);
    expect(() => loadHostConfig({ database: ":memory:" }, { ...env, CASEKIT_WEBHOOK_ALLOWLIST: "http://x/" })).toThrow(/CASEKIT_WEBHOOK_ALLOWLIST/);
  });
});
