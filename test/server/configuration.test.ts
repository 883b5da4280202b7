import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { actingAs, bearer, expectProblem, transports } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld } from "./world.js";
import type { World } from "./world.js";

const configuration = `${apiBasePath}/configuration`;

describe.each(transports)("configuration as code through $name", ({ open }) => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = await open(w);
  });
  afterAll(async () => {
    await client.close();
  });

  const put = (key: string, body: unknown) => client.send("PUT", configuration, { headers: bearer(key), body });

  it("exports one organization's setup and applies it to another: created, then unchanged", async () => {
    const admin = actingAs(client, w.adminKey);
    expect((await admin.post(`${apiBasePath}/custom-fields`, { key: "impact", label: "Impact", scopes: ["case"], type: "enum", options: [{ id: "low", label: "Low" }] })).status).toBe(200);
    expect((await admin.post(`${apiBasePath}/case-types`, { key: "phishing", label: "Phishing", customFields: ["impact"] })).status).toBe(200);
    const exported = await admin.get(configuration);
    expect(exported.status).toBe(200);
    expect(exported.body.customFields.map((f: { key: string }) => f.key)).toEqual(["impact"]);

    const first = await put(w.other.adminKey, exported.body);
    expect(first.status).toBe(200);
    expect(first.body.customFields.created).toEqual(["impact"]);
    expect(first.body.caseTypes.created).toEqual(["phishing"]);
    expect((await actingAs(client, w.other.adminKey).get(configuration)).body).toEqual(exported.body);

    const again = await put(w.other.adminKey, exported.body);
    expect(again.body).toEqual({
      lifecycles: { case: "unchanged", alert: "unchanged", task: "unchanged" },
      caseLifecycles: { published: [], unchanged: [] },
      caseTypes: { created: [], updated: [], unchanged: ["phishing"] },
      customFields: { created: [], updated: [], unchanged: ["impact"] },
    });
  });

  it("answers a bad document with problem+json listing every error by path, and applies none of it", async () => {
    const before = (await actingAs(client, w.adminKey).get(configuration)).body;
    const bad = {
      ...before,
      customFields: before.customFields.map((f: { key: string }) => (f.key === "impact" ? { ...f, type: "string", options: [] } : f)),
      caseTypes: [...before.caseTypes, { key: "malware", label: "Malware", customFields: ["nope"] }],
    };
    const answer = await put(w.adminKey, bad);
    expectProblem(answer, 422, "invalid_configuration");
    expect(answer.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(["customFields.0.type", "caseTypes.1.customFields.0"]));
    expect((await actingAs(client, w.adminKey).get(configuration)).body).toEqual(before);
  });

  it("is for admins only", async () => {
    expectProblem(await actingAs(client, w.keys.readOnly).get(configuration), 403, "missing_scope");
    expectProblem(await put(w.keys.readOnly, { version: 1 }), 403, "missing_scope");
  });
});
