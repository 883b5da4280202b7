import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { actingAs, bearer, expectProblem, transports } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, userWithKey } from "./world.js";
import type { World } from "./world.js";

const api = apiBasePath;

const quick = {
  statuses: [
    { key: "reported", label: "Reported", category: "new", final: false },
    { key: "analysing", label: "Analysing", category: "in_progress", final: false },
    { key: "done", label: "Done", category: "closed", final: true },
  ],
  transitions: [
    { from: ["reported"], to: "analysing" },
    { from: ["analysing"], to: "done", requires: ["field:customFields.informant"] },
  ],
};

describe.each(transports)("a case type's lifecycle, defaultSeverity and the TLP-floor rule through $name", ({ open }) => {
  let w: World;
  let client: Transport;
  let lowAdmin: string;
  beforeAll(async () => {
    w = await makeWorld();
    client = await open(w);
    lowAdmin = (await userWithKey(w, { role: "admin", scopes: ["org:admin", "cases:read", "cases:write"], tlpClearance: 1 })).secret;
  });
  afterAll(async () => {
    await client.close();
  });

  const as = (key: string) => actingAs(client, key);
  const put = (key: string, path: string, body: unknown) => client.send("PUT", path, { headers: bearer(key), body });

  it("named case lifecycles: publish, read, list, versions; case types name them; cases follow them", async () => {
    const admin = as(w.adminKey);
    expectProblem(await admin.get(`${api}/lifecycles/case/named/quick`), 404, "not_found");
    expectProblem(await admin.post(`${api}/case-types`, { key: "phishing", label: "Phishing", lifecycle: "quick" }), 400, "unknown_lifecycle");
    await admin.post(`${api}/custom-fields`, { key: "informant", label: "Informant", scopes: ["case"], type: "string", tlpFloor: 3, defaultValue: "agent-7" });

    const published = await put(w.adminKey, `${api}/lifecycles/case/named/quick`, quick);
    expect(published.status, published.text).toBe(200);
    expect(published.body).toMatchObject({ entity: "case", key: "quick", version: 1 });
    expect((await admin.get(`${api}/lifecycles/case/named/quick`)).body).toEqual(published.body);
    expect((await admin.get(`${api}/lifecycles/case/named`)).body.data.map((l: { key: string }) => l.key)).toEqual(["default", "quick"]);
    expect((await admin.get(`${api}/lifecycles/case/named/quick/versions`)).body.data.map((l: { version: number }) => l.version)).toEqual([1]);
    expect((await admin.get(`${api}/lifecycles/case`)).body).toMatchObject({ key: "default", version: 0 });
    expectProblem(await put(w.keys.readOnly, `${api}/lifecycles/case/named/quick`, quick), 403, "missing_scope");

    const type = await admin.post(`${api}/case-types`, { key: "phishing", label: "Phishing", lifecycle: "quick", defaultSeverity: 2 });
    expect(type.status, type.text).toBe(200);
    expect(type.body).toMatchObject({ lifecycle: "quick", defaultSeverity: 2 });
    await admin.post(`${api}/case-types`, { key: "malware", label: "Malware" });

    const created = await admin.post(`${api}/cases`, { title: "Phish", typeValue: "phishing" });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ severity: 2, statusValue: "reported" });
    expectProblem(await admin.post(`${api}/cases`, { title: "Worm", typeValue: "malware" }), 400, "severity_required");
    const id = created.body.id as string;
    expect((await admin.get(`${api}/cases/${id}/transitions`)).body.data.map((o: { to: string }) => o.to)).toEqual(["analysing"]);
    expectProblem(await admin.patch(`${api}/cases/${id}`, { statusValue: "in_progress" }), 400, "unknown_status");
    expect((await admin.post(`${api}/cases/${id}/transitions`, { to: "analysing" })).body.statusValue).toBe("analysing");
    const switched = await admin.patch(`${api}/cases/${id}`, { typeValue: "malware" });
    expectProblem(switched, 409, "status_not_in_lifecycle");
    expect(switched.body.errors).toEqual([expect.objectContaining({ path: "typeValue" })]);
    expect((await admin.get(`${api}/cases/${id}/history`)).body.data.map((h: { to: string }) => h.to)).toEqual(["reported", "analysing"]);
  });

  it("a caller below a field's floor: no default value in reads or the export, no key in unmet or a refusal", async () => {
    const low = as(lowAdmin);
    const fields = await low.get(`${api}/custom-fields`);
    expect(fields.status, fields.text).toBe(200);
    expect(fields.text).not.toContain("agent-7");
    expect(fields.body.data.find((f: { key: string }) => f.key === "informant")).toMatchObject({ tlpFloor: 3, defaultValue: null });
    const exported = await low.get(`${api}/configuration`);
    expect(exported.status, exported.text).toBe(200);
    expect(exported.text).not.toContain("agent-7");
    expect(exported.body.caseLifecycles.map((l: { key: string }) => l.key)).toEqual(["quick"]);
    const putBack = await put(lowAdmin, `${api}/configuration`, exported.body);
    expect(putBack.status, putBack.text).toBe(200);
    expect(putBack.body.customFields.unchanged).toEqual(["informant"]);
    expect((await as(w.adminKey).get(`${api}/configuration`)).text).toContain("agent-7");

    // A case of TLP 1 whose informant (floor 3) is unset: the gate on it is named, not the field.
    const created = await as(w.adminKey).post(`${api}/cases`, { title: "Tip-off", typeValue: "phishing", tlp: 1 });
    expect(created.status, created.text).toBe(200);
    const id = created.body.id as string;
    // The default filled it: cleared by someone cleared for it.
    expect((await as(w.adminKey).patch(`${api}/cases/${id}`, { customFields: { informant: null } })).status).toBe(200);
    await as(w.adminKey).post(`${api}/cases/${id}/transitions`, { to: "analysing" });
    const listed = await low.get(`${api}/cases/${id}/transitions`);
    expect(listed.body.data).toEqual([expect.objectContaining({ to: "done", unmet: ["field_above_clearance"] })]);
    expect(listed.text).not.toContain("informant");
    const refused = await low.post(`${api}/cases/${id}/transitions`, { to: "done" });
    expectProblem(refused, 409, "transition_blocked");
    expect(refused.body.unmet).toEqual(["field_above_clearance"]);
    expect(refused.text).not.toContain("informant");
    const told = await as(w.adminKey).post(`${api}/cases/${id}/transitions`, { to: "done" });
    expect(told.body.unmet).toEqual(["field:customFields.informant"]);
  });
});
