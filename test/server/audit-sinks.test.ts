import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { actingAs, expectProblem, inProcess } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, userWithKey } from "./world.js";
import type { World } from "./world.js";

const api = apiBasePath;
const target = "tls://siem.example.com:6514";

describe("audit sinks over HTTP", () => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
  });
  afterAll(async () => {
    await client.close();
  });

  it("create, list, get, patch and delete a sink; each change is one audit event", async () => {
    const admin = actingAs(client, w.adminKey);
    const created = await admin.post(`${api}/audit-sinks`, { name: "SOC SIEM", config: { target, servername: "siem.example.com", facility: 16 } });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^snk_[0-9a-z]{26}$/), name: "SOC SIEM", status: "active", config: { target, servername: "siem.example.com", facility: 16, enterpriseId: "32473" } });
    expect((await admin.get(`${api}/audit-sinks`)).body.data).toEqual([created.body]);
    expect((await admin.get(`${api}/audit-sinks/${id}`)).body).toEqual(created.body);
    const paused = await admin.patch(`${api}/audit-sinks/${id}`, { status: "paused" });
    expect(paused.body).toMatchObject({ id, status: "paused" });
    const deleted = await admin.delete(`${api}/audit-sinks/${id}`);
    expect(deleted.body).toMatchObject({ id, status: "paused" });
    expectProblem(await admin.get(`${api}/audit-sinks/${id}`), 404, "not_found");
    const trail = (await admin.get(`${api}/audit-events?targetType=audit_sink&targetId=${id}`)).body.data as { action: string }[];
    expect(trail.map((e) => e.action)).toEqual(["audit_sink.deleted", "audit_sink.updated", "audit_sink.created"]);
  });

  it("bad input is 400 (the shape) or 422 (a document that does not hold together) problem+json naming the field, and changes nothing", async () => {
    const admin = actingAs(client, w.adminKey);
    const before = (await admin.get(`${api}/audit-sinks`)).body;
    for (const [body, path] of [
      [{ name: "Loopback", config: { target: "tcp://127.0.0.1:514" } }, "config.target"],
      [{ name: "Private", config: { target: "tls://10.1.2.3:6514" } }, "config.target"],
      [{ name: "No port", config: { target: "tls://siem.example.com" } }, "config.target"],
      [{ name: "Facility", config: { target, facility: 24 } }, "config.facility"],
      [{ name: "Extra", config: { target }, url: "x" }, ""],
      [{ config: { target } }, "name"],
    ] as const) {
      const answer = await admin.post(`${api}/audit-sinks`, body);
      // The shape is the schema's (400); a target of the right shape that the SSRF rule refuses does not hold together (422).
      if (body.name === "Private" || body.name === "Loopback") expectProblem(answer, 422, "invalid_sink_config");
      else expectProblem(answer, 400, "validation_failed");
      if (path) expect((answer.body.errors as { path: string }[]).map((e) => e.path)).toContain(path);
    }
    const id = (await admin.post(`${api}/audit-sinks`, { name: "Kept", config: { target } })).body.id as string;
    expectProblem(await admin.patch(`${api}/audit-sinks/${id}`, {}), 400, "validation_failed");
    expectProblem(await admin.patch(`${api}/audit-sinks/${id}`, { config: { target: "tcp://localhost:514" } }), 422, "invalid_sink_config");
    expect((await admin.get(`${api}/audit-sinks/${id}`)).body.config).toEqual({ target, facility: 13, enterpriseId: "32473" });
    expectProblem(await admin.get(`${api}/audit-sinks/snk_nope`), 404, "not_found");
    expect(((await admin.get(`${api}/audit-sinks`)).body.data as unknown[]).length).toBe((before.data as unknown[]).length + 1);
  });

  it("a key with audit:read lists but cannot change; one without audit:read cannot create; one holding less than the sink's grant cannot redirect it, only pause it", async () => {
    const admin = actingAs(client, w.adminKey);
    const id = (await admin.post(`${api}/audit-sinks`, { name: "Guarded", config: { target } })).body.id as string;
    const reader = actingAs(client, (await userWithKey(w, { role: "admin", scopes: ["audit:read"] })).secret);
    expect((await reader.get(`${api}/audit-sinks/${id}`)).status).toBe(200);
    expectProblem(await reader.patch(`${api}/audit-sinks/${id}`, { status: "paused" }), 403, "missing_scope");
    const manager = actingAs(client, (await userWithKey(w, { role: "admin", scopes: ["audit:manage"] })).secret);
    expectProblem(await manager.post(`${api}/audit-sinks`, { name: "Blind", config: { target } }), 403, "missing_scope");
    // The grant is the admin key's: every scope, clearance 4.
    const lower = actingAs(client, (await userWithKey(w, { role: "admin", scopes: ["audit:read", "audit:manage"], tlpClearance: 1 })).secret);
    expectProblem(await lower.patch(`${api}/audit-sinks/${id}`, { config: { target: "tls://other.example.com:6514" } }), 403, "missing_scope");
    expect((await lower.patch(`${api}/audit-sinks/${id}`, { status: "paused" })).status).toBe(200);
  });
});
