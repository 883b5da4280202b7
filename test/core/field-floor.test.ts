/**
 * The one TLP-floor rule of custom fields (core/custom-fields/floor.ts), path by path: a caller
 * below a field's floor reads its definition, never a value (a record's, the default value, or
 * whether a record has it set), and never changes what decides it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode, Principal } from "../../core/index.js";
import type { TestKit } from "../helpers/kit.js";
import { makeTestKit, principalFor } from "../helpers/kit.js";

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; paths: string[]; detail: string; unmet?: string[] }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; message: string; errors?: { path: string }[]; unmet?: string[] };
    return { code: e.code, paths: (e.errors ?? []).map((x) => x.path), detail: e.message, ...(e.unmet ? { unmet: e.unmet } : {}) };
  }
  throw new Error("expected a failure");
}

describe("what a caller below a custom field's TLP floor learns about the field", () => {
  let t: TestKit;
  /** An admin cleared to AMBER (2): below the floors (3) of the fields below. */
  let low: Principal;

  beforeEach(async () => {
    t = await makeTestKit();
    low = principalFor(t.admin, { tlpClearance: 2 });
    // Secret values: a floor of 3, a default, one required on close, one on entering on_hold.
    await t.kit.customFields.create(t.admin, { key: "informant", label: "Informant", scopes: ["case"], type: "string", tlpFloor: 3, defaultValue: "agent-7", required: { onClose: true } });
    await t.kit.customFields.create(t.admin, { key: "handler", label: "Handler", scopes: ["case"], type: "string", tlpFloor: 3, required: { onEnter: ["on_hold"] } });
    await t.kit.customFields.create(t.admin, { key: "summary", label: "Summary", scopes: ["case"], type: "text", required: { onClose: true } });
  });

  it("definition reads and the export show the definition without its default value", async () => {
    const all = (await t.kit.customFields.list(low, {})).data;
    expect(all.find((d) => d.key === "informant")).toMatchObject({ key: "informant", label: "Informant", tlpFloor: 3, required: { onClose: true }, defaultValue: null });
    const informant = all.find((d) => d.key === "informant")!;
    expect((await t.kit.customFields.get(low, informant.id)).defaultValue).toBeNull();
    expect((await t.kit.customFields.get(t.admin, informant.id)).defaultValue).toBe("agent-7");
    expect((await t.kit.customFields.list(t.admin, {})).data.find((d) => d.key === "informant")!.defaultValue).toBe("agent-7");

    const exported = await t.kit.configuration.export(low);
    expect(exported.customFields.find((f) => f.key === "informant")).not.toHaveProperty("defaultValue");
    expect(JSON.stringify(exported)).not.toContain("agent-7");
    expect((await t.kit.configuration.export(t.admin)).customFields.find((f) => f.key === "informant")?.defaultValue).toBe("agent-7");
    // Putting that export back changes nothing: the default it could not show is kept.
    expect((await t.kit.configuration.import(low, exported)).customFields.unchanged).toEqual(["handler", "informant", "summary"]);
    expect((await t.kit.customFields.get(t.admin, informant.id)).defaultValue).toBe("agent-7");
  });

  it("neither sets, clears nor uncovers the default value: defaultValue and tlpFloor changes are refused by path, by the route and the import", async () => {
    const informant = (await t.kit.customFields.list(t.admin, {})).data.find((d) => d.key === "informant")!;
    expect(await failure(t.kit.customFields.update(low, informant.id, { defaultValue: null }))).toMatchObject({ code: "validation_failed", paths: ["defaultValue"] });
    expect(await failure(t.kit.customFields.update(low, informant.id, { tlpFloor: null }))).toMatchObject({ code: "validation_failed", paths: ["tlpFloor"] });
    // What else the definition says stays theirs to change, and the answer keeps the default withheld.
    const relabelled = await t.kit.customFields.update(low, informant.id, { label: "Source" });
    expect(relabelled).toMatchObject({ label: "Source", defaultValue: null });
    expect((await t.kit.customFields.get(t.admin, informant.id)).defaultValue).toBe("agent-7");

    const doc = await t.kit.configuration.export(low);
    doc.customFields = doc.customFields.map((f) => (f.key === "informant" ? { ...f, defaultValue: "someone-else" } : f.key === "handler" ? { ...f, tlpFloor: 1 } : f));
    const refused = await failure(t.kit.configuration.import(low, doc));
    expect(refused.code).toBe("invalid_configuration");
    expect(refused.paths).toEqual(["customFields.0.tlpFloor", "customFields.1.defaultValue"]);
    expect((await t.kit.customFields.get(t.admin, informant.id)).defaultValue).toBe("agent-7");
  });

  it("definition events are marked with the floor while the definition carries a default value", async () => {
    const events = await t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 100 }));
    const created = (key: string) => events.find((e) => e.name === "custom_field.created" && (e.payload as { key: string }).key === key)!;
    expect(created("informant").tlp).toBe(3);
    expect(created("handler").tlp).toBeNull();
    expect(created("summary").tlp).toBeNull();
    const handler = (await t.kit.customFields.list(t.admin, {})).data.find((d) => d.key === "handler")!;
    await t.kit.customFields.update(t.admin, handler.id, { defaultValue: "ops" });
    const updated = (await t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 100 }))).filter((e) => e.name === "custom_field.updated");
    expect(updated.map((e) => e.tlp)).toEqual([3]);
  });

  it("a record's transitions and refused moves name a requirement on such a field field_above_clearance, never its key", async () => {
    const record = await t.kit.cases.create(t.admin, { title: "Tip-off", severity: 2, tlp: 2, customFields: { summary: "s" } });
    // The default filled informant; clear it as someone cleared for it.
    await t.kit.cases.update(t.admin, record.id, { customFields: { summary: "s", informant: null } });

    const forLow = (await t.kit.transitions.list(low, "case", record.id)).data;
    expect(forLow.find((o) => o.to === "on_hold")?.unmet).toEqual(["field_above_clearance"]);
    expect(forLow.find((o) => o.to === "resolved")?.unmet).toEqual(["field_above_clearance"]);
    expect(JSON.stringify(forLow)).not.toMatch(/informant|handler/);
    const forAdmin = (await t.kit.transitions.list(t.admin, "case", record.id)).data;
    expect(forAdmin.find((o) => o.to === "resolved")?.unmet).toEqual(["field:customFields.informant"]);

    const refused = await failure(t.kit.transitions.perform(low, "case", record.id, { to: "resolved" }));
    expect(refused).toMatchObject({ code: "transition_blocked", paths: [], unmet: ["field_above_clearance"] });
    expect(refused.detail).not.toMatch(/informant/);
    const patched = await failure(t.kit.cases.update(low, record.id, { statusValue: "on_hold" }));
    expect(patched).toMatchObject({ code: "transition_blocked", unmet: ["field_above_clearance"] });
    expect(patched.detail).not.toMatch(/handler/);
    // Two hidden fields and a visible one unset: the visible one by name, the hidden ones as one entry.
    await t.kit.cases.update(t.admin, record.id, { customFields: { summary: null } });
    expect((await failure(t.kit.transitions.perform(low, "case", record.id, { to: "closed" }))).unmet).toEqual(["field:customFields.summary", "field_above_clearance"]);
    // Someone cleared for them is told which fields.
    expect(await failure(t.kit.transitions.perform(t.admin, "case", record.id, { to: "resolved" }))).toMatchObject({
      code: "required_fields_unset",
      paths: ["customFields.informant", "customFields.summary"],
    });
  });

  it("an alert's (and so a task's) moves go through the same rule: one engine, every entity", async () => {
    await t.kit.customFields.create(t.admin, { key: "victim", label: "Victim", scopes: ["alert"], type: "string", tlpFloor: 3, required: { onClose: true } });
    const alert = await t.kit.alerts.create(t.admin, { title: "Beacon", severity: 2, tlp: 1, source: "edr", sourceRef: "b-1" });
    const listed = (await t.kit.transitions.list(low, "alert", alert.id)).data;
    expect(listed.find((o) => o.to === "closed")?.unmet).toEqual(["field_above_clearance"]);
    expect(JSON.stringify(listed)).not.toContain("victim");
    const refused = await failure(t.kit.alerts.update(low, alert.id, { statusValue: "closed" }));
    expect(refused).toMatchObject({ code: "transition_blocked", unmet: ["field_above_clearance"] });
    expect(refused.detail).not.toContain("victim");
    expect((await failure(t.kit.alerts.update(t.admin, alert.id, { statusValue: "closed" }))).unmet).toEqual(["field:customFields.victim"]);
  });

  it("record reads and lists never carry the value; a filter on the field is refused", async () => {
    const record = await t.kit.cases.create(t.admin, { title: "Tip-off", severity: 2, tlp: 2 });
    expect(record.customFields).toEqual({ informant: "agent-7" });
    expect((await t.kit.cases.get(low, record.id)).customFields).toEqual({});
    expect((await t.kit.cases.list(low, {})).data[0]!.customFields).toEqual({});
    expect((await failure(t.kit.cases.list(low, { "cf.informant": "agent-7" }))).paths).toEqual(["cf.informant"]);
  });
});
