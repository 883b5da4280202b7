import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { actingAs, expectProblem, transports } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, userWithKey, validCase } from "./world.js";
import type { World } from "./world.js";

const fields = `${apiBasePath}/custom-fields`;
const types = `${apiBasePath}/case-types`;
const cases = `${apiBasePath}/cases`;

describe.each(transports)("custom fields and case types through $name", ({ open }) => {
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

  it("defines fields and types, validates case values with problem+json field errors, filters with cf.<key>", async () => {
    const admin = as(w.adminKey);
    // Free-form until the first case field is defined.
    expect((await admin.post(cases, { ...validCase, customFields: { free: { form: true } } })).status).toBe(200);

    const impact = await admin.post(fields, { key: "impact", label: "Impact", scopes: ["case"], type: "enum", options: [{ id: "low", label: "Low" }, { id: "high", label: "High" }], filterable: true });
    expect(impact.status).toBe(200);
    expect(impact.body).toMatchObject({ key: "impact", type: "enum", options: [{ id: "low", label: "Low", deprecated: false }, { id: "high", label: "High", deprecated: false }], archivedAt: null, tlpFloor: null });
    expectProblem(await admin.post(fields, { key: "impact", label: "Again", scopes: ["case"], type: "string" }), 409, "conflict");
    expectProblem(await admin.post(fields, { key: "Bad Key", label: "x", scopes: ["case"], type: "string" }), 400, "validation_failed");
    expectProblem(await admin.post(fields, { key: "no_options", label: "x", scopes: ["case"], type: "enum" }), 422, "invalid_field_definition");
    expectProblem(await admin.post(fields, { key: "twice", label: "x", scopes: ["case"], type: "enum", options: [{ id: "a", label: "A" }, { id: "a", label: "B" }] }), 422, "invalid_field_definition");
    expect((await admin.patch(`${fields}/${impact.body.id}`, { label: "Business impact" })).body.label).toBe("Business impact");
    expect((await admin.get(`${fields}/${impact.body.id}`)).body.label).toBe("Business impact");
    expect((await admin.get(`${fields}?scope=case`)).body.data.map((d: { key: string }) => d.key)).toEqual(["impact"]);

    const bad = await admin.post(cases, { ...validCase, customFields: { impact: "medium", free: 1 } });
    expectProblem(bad, 400, "validation_failed");
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["customFields.free", "customFields.impact"]);

    const high = await admin.post(cases, { ...validCase, customFields: { impact: "high" } });
    await admin.post(cases, { ...validCase, customFields: { impact: "low" } });
    const found = await admin.get(`${cases}?cf.impact=high`);
    expect(found.status).toBe(200);
    expect(found.body.data.map((c: { id: string }) => c.id)).toEqual([high.body.id]);
    expectProblem(await admin.get(`${cases}?cf.unknown=1`), 400, "validation_failed");

    const schema = await admin.get(`${fields}/schema?scope=case`);
    expect(schema.body).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", additionalProperties: false, properties: { impact: { title: "Business impact" } } });
    expect((await admin.get(`${fields}/schema?scope=task`)).body).toEqual({ $schema: "https://json-schema.org/draft/2020-12/schema", title: "customFields of a task", type: "object" });
    expectProblem(await admin.get(`${fields}/schema?scope=nope`), 400, "validation_failed");

    const type = await admin.post(types, { key: "phishing", label: "Phishing", defaultTlp: 3, customFields: ["impact"] });
    expect(type.status).toBe(200);
    expectProblem(await admin.post(cases, { ...validCase, typeValue: "malware" }), 400, "unknown_case_type");
    const typed = await admin.post(cases, { ...validCase, typeValue: "phishing" });
    expect(typed.body).toMatchObject({ typeValue: "phishing", tlp: 3 });
    expectProblem(await admin.delete(`${types}/${type.body.id}`), 409, "conflict");
    expect((await admin.patch(`${types}/${type.body.id}`, { archived: true })).body.archivedAt).not.toBeNull();
    expectProblem(await admin.post(cases, { ...validCase, typeValue: "phishing" }), 400, "case_type_archived");
    expect((await admin.get(types)).body.data.map((t: { key: string }) => t.key)).toContain("phishing");
  });

  it("refuses definition changes to keys without org:admin, and a close while a required field is unset", async () => {
    const readOnly = as(w.keys.readOnly);
    expectProblem(await readOnly.post(types, { key: "x", label: "x" }), 403, "missing_scope");
    const admin = as(w.adminKey);
    await admin.post(fields, { key: "root_cause", label: "Root cause", scopes: ["case"], type: "text", required: { onClose: true } });
    const created = await admin.post(cases, validCase);
    const refused = await admin.patch(`${cases}/${created.body.id}`, { statusValue: "closed" });
    expectProblem(refused, 409, "required_fields_unset");
    expect(refused.body.errors).toEqual([{ path: "customFields.root_cause", message: "must be set before closing" }]);
    // GET …/transitions lists the requirement on every move into a final status; POST refuses for exactly it.
    const options = (await admin.get(`${cases}/${created.body.id}/transitions`)).body.data as { to: string; final: boolean; unmet: string[] }[];
    for (const option of options) expect(option.unmet).toEqual(option.final ? ["field:customFields.root_cause"] : []);
    expect(options.some((o) => o.final)).toBe(true);
    const taken = await admin.post(`${cases}/${created.body.id}/transitions`, { to: "closed" });
    expectProblem(taken, 409, "required_fields_unset");
    expect(taken.body.unmet).toEqual(["field:customFields.root_cause"]);
  });

  it("never shows a value above the caller's clearance in a read or a list", async () => {
    const admin = as(w.adminKey);
    await admin.post(fields, { key: "informant", label: "Informant", scopes: ["case"], type: "string", tlpFloor: 2 });
    const created = await admin.post(cases, { ...validCase, tlp: 1, customFields: { informant: "Deep Throat" } });
    expect(created.body.customFields.informant).toBe("Deep Throat");
    const low = as(w.keys.lowClearance);
    const read = await low.get(`${cases}/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.text).not.toContain("Deep Throat");
    const listed = await low.get(`${cases}?limit=500`);
    expect(listed.body.data.some((c: { id: string }) => c.id === created.body.id)).toBe(true);
    expect(listed.text).not.toContain("Deep Throat");
    expect((await low.get(`${fields}/schema?scope=case`)).text).not.toContain("informant");
  });

  it("tasks and observables: values checked, filtered with cf.<key>, hidden above the floor, task closes gated", async () => {
    const admin = as(w.adminKey);
    const define = (body: Record<string, unknown>) => admin.post(fields, body);
    expect((await define({ key: "effort", label: "Effort", scopes: ["task"], type: "enum", options: [{ id: "s", label: "S" }, { id: "l", label: "L" }], filterable: true })).status).toBe(200);
    await define({ key: "outcome", label: "Outcome", scopes: ["task"], type: "text", required: { onClose: true } });
    await define({ key: "verdict", label: "Verdict", scopes: ["observable"], type: "enum", options: [{ id: "benign", label: "Benign" }, { id: "malicious", label: "Malicious" }], filterable: true });
    await define({ key: "handler", label: "Handler", scopes: ["task", "observable"], type: "string", tlpFloor: 2 });
    const parent = (await admin.post(cases, { ...validCase, tlp: 1 })).body.id as string;
    const tasks = `${cases}/${parent}/tasks`;
    const observables = `${cases}/${parent}/observables`;

    const bad = await admin.post(tasks, { title: "T", customFields: { effort: "xl", free: 1 } });
    expectProblem(bad, 400, "validation_failed");
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["customFields.effort", "customFields.free"]);
    const small = await admin.post(tasks, { title: "Small", customFields: { effort: "s", handler: "Ana" } });
    expect(small.body.customFields).toEqual({ effort: "s", handler: "Ana" });
    await admin.post(tasks, { title: "Large", customFields: { effort: "l" } });
    expect((await admin.get(`${apiBasePath}/tasks?cf.effort=s`)).body.data.map((t: { id: string }) => t.id)).toEqual([small.body.id]);
    expect((await admin.get(`${tasks}?cf.effort=l`)).body.data.map((t: { title: string }) => t.title)).toEqual(["Large"]);
    expectProblem(await admin.get(`${apiBasePath}/tasks?cf.outcome=x`), 400, "validation_failed");
    const selected = await admin.post(`${apiBasePath}/bulk/tasks`, { options: { selectAll: true, filters: { customFields: { effort: "l" } } }, fields: { customFields: { effort: "s" } } });
    expect(selected.body).toMatchObject({ matched: 1, updated: 1 });
    expect((await admin.get(`${apiBasePath}/tasks?cf.effort=s`)).body.data).toHaveLength(2);

    const closing = await admin.patch(`${apiBasePath}/tasks/${small.body.id}`, { status: "completed" });
    expectProblem(closing, 409, "required_fields_unset");
    expect(closing.body.errors).toEqual([{ path: "customFields.outcome", message: "must be set before closing" }]);
    const options = (await admin.get(`${apiBasePath}/tasks/${small.body.id}/transitions`)).body.data as { to: string; unmet: string[] }[];
    expect(options.find((o) => o.to === "completed")?.unmet).toEqual(["field:customFields.outcome"]);
    const done = await admin.post(`${apiBasePath}/tasks/${small.body.id}/transitions`, { to: "completed", fields: { customFields: { effort: "s", handler: "Ana", outcome: "Reset" } } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "completed", customFields: { outcome: "Reset" } });

    expectProblem(await admin.post(observables, { dataType: "ip", data: "192.0.2.1", customFields: { verdict: "maybe" } }), 400, "validation_failed");
    const ip = await admin.post(observables, { dataType: "ip", data: "192.0.2.1", customFields: { verdict: "malicious", handler: "Ana" } });
    await admin.post(observables, { dataType: "domain", data: "evil.example", customFields: { verdict: "benign" } });
    expect((await admin.get(`${observables}?cf.verdict=malicious`)).body.data.map((o: { id: string }) => o.id)).toEqual([ip.body.id]);
    expect((await admin.get(`${apiBasePath}/observables?cf.verdict=benign`)).body.data.map((o: { data: string }) => o.data)).toEqual(["evil.example"]);
    const schema = await admin.get(`${fields}/schema?scope=observable`);
    expect(Object.keys(schema.body.properties).sort()).toEqual(["handler", "verdict"]);

    // A caller cleared below the floor (1 < 2) sees neither value, in reads or lists.
    const low = as((await userWithKey(w, { role: "analyst", scopes: ["cases:read", "tasks:read", "observables:read"], tlpClearance: 1 })).secret);
    for (const path of [`${apiBasePath}/tasks/${small.body.id}`, `${apiBasePath}/tasks?limit=500`, `${tasks}`, `${apiBasePath}/observables/${ip.body.id}`, observables, `${apiBasePath}/observables?limit=500`]) {
      const answer = await low.get(path);
      expect(answer.status, `${path} ${answer.text}`).toBe(200);
      expect(answer.text, path).toContain(path.includes("observables") ? "malicious" : "effort");
      expect(answer.text, path).not.toContain("Ana");
    }
    expect((await low.get(`${fields}/schema?scope=task`)).text).not.toContain("handler");
  });
});
