import { beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode, Principal } from "../../core/index.js";
import { unmetFieldRequirements } from "../../core/index.js";
import { addOrganization, addUser, makeTestKit, principalFor } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; errors: { path: string; message: string }[] }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; errors?: { path: string; message: string }[] };
    return { code: e.code, errors: e.errors ?? [] };
  }
  throw new Error("expected a failure");
}

const paths = (f: { errors: { path: string }[] }) => f.errors.map((e) => e.path);

describe("custom fields", () => {
  let t: TestKit;
  let admin: Principal;
  beforeEach(async () => {
    t = await makeTestKit();
    admin = t.admin;
  });

  async function defineTriageFields() {
    const impact = await t.kit.customFields.create(admin, {
      key: "impact",
      label: "Impact",
      scopes: ["case", "alert"],
      type: "enum",
      options: [{ id: "low", label: "Low" }, { id: "high", label: "High" }, { id: "old", label: "Old", deprecated: true }],
      filterable: true,
    });
    const vectors = await t.kit.customFields.create(admin, {
      key: "vectors",
      label: "Attack vectors",
      scopes: ["case"],
      type: "multi_enum",
      options: [{ id: "email", label: "Email" }, { id: "web", label: "Web" }, { id: "usb", label: "USB" }],
      bounds: { max: 2 },
      filterable: true,
    });
    const rootCause = await t.kit.customFields.create(admin, { key: "root_cause", label: "Root cause", scopes: ["case"], type: "text", required: { onClose: true } });
    const score = await t.kit.customFields.create(admin, { key: "score", label: "Score", scopes: ["case"], type: "integer", bounds: { min: 0, max: 100 }, defaultValue: 50, filterable: true });
    const secret = await t.kit.customFields.create(admin, { key: "informant", label: "Informant", scopes: ["case"], type: "string", tlpFloor: 4, filterable: true });
    return { impact, vectors, rootCause, score, secret };
  }

  it("keeps free-form customFields while the organization defines no field for the scope", async () => {
    const created = await t.kit.cases.create(admin, { title: "Free", severity: 1, customFields: { anything: { nested: [1, 2] } } });
    expect(created.customFields).toEqual({ anything: { nested: [1, 2] } });
    await t.kit.customFields.create(admin, { key: "impact", label: "Impact", scopes: ["alert"], type: "string" });
    // An alert field does not switch cases.
    expect((await t.kit.cases.create(admin, { title: "Still free", severity: 1, customFields: { other: 1 } })).customFields).toEqual({ other: 1 });
  });

  it("validates values once the scope has definitions, with defaults and a field error per problem", async () => {
    await defineTriageFields();
    const created = await t.kit.cases.create(admin, { title: "Typed", severity: 2, customFields: { impact: "high", vectors: ["email", "web"] } });
    expect(created.customFields).toEqual({ impact: "high", vectors: ["email", "web"], score: 50 });

    const bad = await failure(t.kit.cases.create(admin, { title: "Bad", severity: 2, customFields: { impact: "medium", vectors: ["email", "web", "usb"], score: 101, undefined_key: 1 } }));
    expect(bad.code).toBe("validation_failed");
    expect(paths(bad).sort()).toEqual(["customFields.impact", "customFields.score", "customFields.undefined_key", "customFields.vectors"]);
    // A deprecated option is never newly chosen.
    expect(paths(await failure(t.kit.cases.create(admin, { title: "Old", severity: 2, customFields: { impact: "old" } })))).toEqual(["customFields.impact"]);
    // Nothing was written by the refused creates.
    expect((await t.kit.cases.list(admin, {})).data).toHaveLength(1);
  });

  it("keeps option ids stable: relabelling keeps data, removing an option is refused", async () => {
    const { impact } = await defineTriageFields();
    const c = await t.kit.cases.create(admin, { title: "A", severity: 1, customFields: { impact: "low" } });
    await t.kit.customFields.update(admin, impact.id, { options: [{ id: "low", label: "Minor" }, { id: "high", label: "Major" }, { id: "old", label: "Old", deprecated: true }] });
    expect((await t.kit.cases.get(admin, c.id)).customFields.impact).toBe("low");
    const removed = await failure(t.kit.customFields.update(admin, impact.id, { options: [{ id: "high", label: "Major" }] }));
    expect(removed.code).toBe("invalid_field_definition");
    expect(removed.errors[0]!.message).toMatch(/never removed/);
  });

  it("refuses closing a case until its required-on-close fields are set (unmetFieldRequirements says which)", async () => {
    const { rootCause } = await defineTriageFields();
    const c = await t.kit.cases.create(admin, { title: "Close me", severity: 1 });
    const definitions = await t.kit.storage.read((tx) => tx.customFields.listAll(t.organizationId));
    expect(unmetFieldRequirements(c, definitions, "close").map((u) => u.key)).toEqual(["root_cause"]);
    const refused = await failure(t.kit.cases.update(admin, c.id, { statusValue: "closed" }));
    expect(refused).toEqual({ code: "required_fields_unset", errors: [{ path: "customFields.root_cause", message: "must be set before closing" }] });
    expect((await t.kit.cases.get(admin, c.id)).statusValue).toBe("new");
    const closed = await t.kit.cases.update(admin, c.id, { statusValue: "closed", customFields: { ...c.customFields, root_cause: "Phished credentials" } });
    expect(closed.statusValue).toBe("closed");
    // An archived field requires nothing.
    await t.kit.customFields.update(admin, rootCause.id, { archived: true });
    const other = await t.kit.cases.create(admin, { title: "Other", severity: 1 });
    expect((await t.kit.cases.update(admin, other.id, { statusValue: "resolved" })).statusValue).toBe("resolved");
  });

  it("requires on-create fields at create", async () => {
    await t.kit.customFields.create(admin, { key: "reporter", label: "Reporter", scopes: ["alert"], type: "email", required: { onCreate: true } });
    const missing = await failure(t.kit.alerts.create(admin, { title: "A", severity: 1, source: "siem" }));
    expect(missing).toMatchObject({ code: "validation_failed", errors: [{ path: "customFields.reporter", message: "is required" }] });
    const bad = await failure(t.kit.alerts.create(admin, { title: "A", severity: 1, source: "siem", customFields: { reporter: "not an address" } }));
    expect(bad.errors[0]!.path).toBe("customFields.reporter");
    const ok = await t.kit.alerts.create(admin, { title: "A", severity: 1, source: "siem", customFields: { reporter: "ana@example.test" } });
    expect(ok.customFields).toEqual({ reporter: "ana@example.test" });
  });

  it("checks user fields against the organization's active users", async () => {
    await t.kit.customFields.create(admin, { key: "owner", label: "Owner", scopes: ["case"], type: "user" });
    const user = await addUser(t.kit, t.organizationId);
    const other = await addOrganization(t.kit, "Other org");
    const stranger = await addUser(t.kit, other.organizationId);
    expect((await t.kit.cases.create(admin, { title: "A", severity: 1, customFields: { owner: user.id } })).customFields.owner).toBe(user.id);
    expect(paths(await failure(t.kit.cases.create(admin, { title: "B", severity: 1, customFields: { owner: stranger.id } })))).toEqual(["customFields.owner"]);
  });

  it("filters lists by cf.<key>, a multi_enum by one option, only on filterable fields", async () => {
    await defineTriageFields();
    const a = await t.kit.cases.create(admin, { title: "A", severity: 1, customFields: { impact: "high", vectors: ["email"] } });
    const b = await t.kit.cases.create(admin, { title: "B", severity: 1, customFields: { impact: "low", vectors: ["email", "web"], score: 7 } });
    const ids = async (query: Record<string, unknown>) => (await t.kit.cases.list(admin, query)).data.map((c) => c.id);
    expect(await ids({ "cf.impact": "high" })).toEqual([a.id]);
    expect(await ids({ "cf.vectors": "email" })).toEqual([b.id, a.id]);
    expect(await ids({ "cf.vectors": "web", "cf.impact": "low" })).toEqual([b.id]);
    expect(await ids({ "cf.score": "7" })).toEqual([b.id]);
    expect(await ids({ "cf.score": "50" })).toEqual([a.id]);
    // An update moves the indexed values with the record.
    await t.kit.cases.update(admin, a.id, { customFields: { impact: "low", vectors: ["usb"] } });
    expect(await ids({ "cf.impact": "high" })).toEqual([]);
    expect(await ids({ "cf.vectors": "usb" })).toEqual([a.id]);
    expect(paths(await failure(t.kit.cases.list(admin, { "cf.root_cause": "x" })))).toEqual(["cf.root_cause"]);
    expect(paths(await failure(t.kit.cases.list(admin, { "cf.nope": "x" })))).toEqual(["cf.nope"]);
  });

  it("filters a bulk selectAll by a custom field value", async () => {
    await defineTriageFields();
    const user = await addUser(t.kit, t.organizationId);
    const hit = await t.kit.alerts.create(admin, { title: "Hit", severity: 1, source: "siem", customFields: { impact: "high" } });
    const miss = await t.kit.alerts.create(admin, { title: "Miss", severity: 1, source: "siem", customFields: { impact: "low" } });
    const result = await t.kit.alerts.bulkAssign(admin, { assigneeId: user.id, options: { selectAll: true, filters: { customFields: { impact: "high" } } } });
    expect(result).toMatchObject({ matched: 1 });
    expect((await t.kit.alerts.get(admin, hit.id)).assigneeId).toBe(user.id);
    expect((await t.kit.alerts.get(admin, miss.id)).assigneeId).toBeNull();
  });

  it("never shows a value to a caller below the field's TLP floor: reads, lists, filters, events, audit, bulk", async () => {
    await defineTriageFields();
    const low = principalFor(admin, { tlpClearance: 2 });
    const c = await t.kit.cases.create(admin, { title: "Sensitive", severity: 2, tlp: 2, customFields: { informant: "Deep Throat", impact: "high" } });
    expect(c.customFields.informant).toBe("Deep Throat");
    expect((await t.kit.cases.get(low, c.id)).customFields).toEqual({ impact: "high", score: 50 });
    expect((await t.kit.cases.list(low, {})).data[0]!.customFields).not.toHaveProperty("informant");
    expect(paths(await failure(t.kit.cases.list(low, { "cf.informant": "Deep Throat" })))).toEqual(["cf.informant"]);
    // A low caller's write neither sees, sets nor clears the hidden value.
    expect(paths(await failure(t.kit.cases.update(low, c.id, { customFields: { informant: "x" } })))).toEqual(["customFields.informant"]);
    const changed = await t.kit.cases.update(low, c.id, { customFields: { impact: "low" } });
    expect(changed.customFields).toEqual({ impact: "low" });
    expect((await t.kit.cases.get(admin, c.id)).customFields).toEqual({ impact: "low", informant: "Deep Throat" });
    // The schema leaves the field out for that caller.
    const schema = await t.kit.customFields.schema(low, { scope: "case" });
    expect(Object.keys(schema.properties as object)).not.toContain("informant");
    // Events (TLP 2) and their audit entries never carry it.
    const [events, audit] = await t.kit.storage.read(async (tx) => [await tx.events.list(t.organizationId, { limit: 50 }), await tx.audit.list(t.organizationId, { limit: 50 })] as const);
    expect(JSON.stringify(events.filter((e) => e.resourceType === "case"))).not.toContain("Deep Throat");
    expect(JSON.stringify(audit.filter((e) => e.target.type === "case"))).not.toContain("Deep Throat");
    // Alerts: a bulk's event items too.
    await t.kit.customFields.create(admin, { key: "source_ip", label: "Source IP", scopes: ["alert"], type: "string", tlpFloor: 3 });
    const alert = await t.kit.alerts.create(admin, { title: "A", severity: 1, source: "siem", tlp: 1, customFields: { source_ip: "10.0.0.1" } });
    expect((await t.kit.alerts.get(low, alert.id)).customFields).toEqual({});
    const user = await addUser(t.kit, t.organizationId);
    await t.kit.alerts.bulkAssign(admin, { ids: [alert.id], assigneeId: user.id });
    const after = await t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 50 }));
    expect(JSON.stringify(after)).not.toContain("10.0.0.1");
  });
});

describe("case types", () => {
  let t: TestKit;
  let admin: Principal;
  beforeEach(async () => {
    t = await makeTestKit();
    admin = t.admin;
  });

  it("keeps typeValue free text until the organization defines a type, then requires a live one", async () => {
    expect((await t.kit.cases.create(admin, { title: "Before", severity: 1, typeValue: "whatever" })).typeValue).toBe("whatever");
    const phishing = await t.kit.caseTypes.create(admin, { key: "phishing", label: "Phishing", defaultTlp: 3, defaultPap: 1 });
    expect((await failure(t.kit.cases.create(admin, { title: "After", severity: 1, typeValue: "whatever" }))).code).toBe("unknown_case_type");
    const typed = await t.kit.cases.create(admin, { title: "Typed", severity: 1, typeValue: "phishing" });
    expect(typed).toMatchObject({ typeValue: "phishing", tlp: 3, pap: 1 });
    // The body's own markings win over the type's defaults.
    expect(await t.kit.cases.create(admin, { title: "Own marking", severity: 1, typeValue: "phishing", tlp: 1 })).toMatchObject({ tlp: 1, pap: 1 });
    // A case without a type stays allowed.
    expect((await t.kit.cases.create(admin, { title: "Untyped", severity: 1 })).typeValue).toBeNull();

    await t.kit.caseTypes.update(admin, phishing.id, { archived: true });
    expect((await failure(t.kit.cases.create(admin, { title: "Archived", severity: 1, typeValue: "phishing" }))).code).toBe("case_type_archived");
    // Its cases keep it.
    expect((await t.kit.cases.update(admin, typed.id, { title: "Renamed" })).typeValue).toBe("phishing");
    // Not deleted while used.
    expect((await failure(t.kit.caseTypes.delete(admin, phishing.id))).code).toBe("conflict");
    const unused = await t.kit.caseTypes.create(admin, { key: "unused", label: "Unused" });
    expect((await t.kit.caseTypes.delete(admin, unused.id)).key).toBe("unused");
    expect((await failure(t.kit.caseTypes.get(admin, unused.id))).code).toBe("not_found");
  });

  it("limits a typed case to its type's fields, and its required-on-close fields gate the close", async () => {
    await t.kit.customFields.create(admin, { key: "sender", label: "Sender", scopes: ["case"], type: "email", required: { onClose: true } });
    await t.kit.customFields.create(admin, { key: "clicked", label: "Clicked", scopes: ["case"], type: "boolean", required: { onClose: true } });
    await t.kit.customFields.create(admin, { key: "malware_family", label: "Family", scopes: ["case"], type: "string" });
    expect((await failure(t.kit.caseTypes.create(admin, { key: "x", label: "X", customFields: ["nope"] }))).code).toBe("unknown_reference");
    await t.kit.caseTypes.create(admin, { key: "phishing", label: "Phishing", customFields: ["sender", "clicked"] });
    expect(paths(await failure(t.kit.cases.create(admin, { title: "P", severity: 1, typeValue: "phishing", customFields: { malware_family: "emotet" } })))).toEqual(["customFields.malware_family"]);
    const c = await t.kit.cases.create(admin, { title: "P", severity: 1, typeValue: "phishing", customFields: { sender: "evil@example.test" } });
    const refused = await failure(t.kit.cases.update(admin, c.id, { statusValue: "closed" }));
    expect(refused).toMatchObject({ code: "required_fields_unset", errors: [{ path: "customFields.clicked" }] });
    expect((await t.kit.cases.update(admin, c.id, { statusValue: "closed", customFields: { sender: "evil@example.test", clicked: false } })).statusValue).toBe("closed");
  });

  it("records an audit entry and an event for every definition change", async () => {
    const field = await t.kit.customFields.create(admin, { key: "k", label: "K", scopes: ["case"], type: "string" });
    await t.kit.customFields.update(admin, field.id, { label: "K2" });
    const type = await t.kit.caseTypes.create(admin, { key: "t", label: "T" });
    await t.kit.caseTypes.update(admin, type.id, { label: "T2" });
    await t.kit.caseTypes.delete(admin, type.id);
    const [events, audit] = await t.kit.storage.read(async (tx) => [await tx.events.list(t.organizationId, { limit: 10 }), await tx.audit.list(t.organizationId, { limit: 10 })] as const);
    const names = ["case_type.deleted", "case_type.updated", "case_type.created", "custom_field.updated", "custom_field.created"];
    expect(events.map((e) => e.name)).toEqual(names);
    expect(audit.map((a) => a.action)).toEqual(names);
  });

  it("refuses definition writes without org:admin", async () => {
    const analyst = principalFor(admin, { role: "analyst", scopes: new Set(["cases:read", "cases:write"]) });
    expect((await failure(t.kit.customFields.create(analyst, { key: "k", label: "K", scopes: ["case"], type: "string" }))).code).toBe("missing_scope");
    expect((await failure(t.kit.caseTypes.create(analyst, { key: "k", label: "K" }))).code).toBe("missing_scope");
    expect((await t.kit.caseTypes.list(analyst, {})).data).toEqual([]);
  });
});

describe("required-on-close fields under an organization's own lifecycle", () => {
  it("close means a final status of the lifecycle: a case type's two required fields gate it, a multi_enum filters", async () => {
    const t = await makeTestKit();
    const admin = t.admin;
    await t.kit.lifecycles.publish(admin, "case", {
      statuses: [
        { key: "triage", label: "Triage", category: "new", final: false, color: null },
        { key: "contained", label: "Contained", category: "resolved", final: false, color: null },
        { key: "done", label: "Done", category: "closed", final: true, color: null },
      ],
      transitions: [
        { from: ["triage"], to: "contained" },
        { from: ["triage", "contained"], to: "done" },
      ],
    });
    await t.kit.customFields.create(admin, { key: "root_cause", label: "Root cause", scopes: ["case"], type: "text", required: { onClose: true } });
    await t.kit.customFields.create(admin, { key: "lessons", label: "Lessons learned", scopes: ["case"], type: "text", required: { onClose: true } });
    await t.kit.customFields.create(admin, { key: "vectors", label: "Vectors", scopes: ["case"], type: "multi_enum", options: [{ id: "email", label: "Email" }, { id: "web", label: "Web" }], filterable: true });
    await t.kit.caseTypes.create(admin, { key: "incident", label: "Incident", customFields: ["root_cause", "lessons", "vectors"] });
    const c = await t.kit.cases.create(admin, { title: "Incident", severity: 3, typeValue: "incident", customFields: { vectors: ["email", "web"] } });
    expect(c.statusValue).toBe("triage");
    // Contained is resolved but not final: no requirement yet.
    expect((await t.kit.cases.update(admin, c.id, { statusValue: "contained" })).statusValue).toBe("contained");
    const refused = await failure(t.kit.cases.update(admin, c.id, { statusValue: "done" }));
    expect(refused.code).toBe("required_fields_unset");
    expect(paths(refused).sort()).toEqual(["customFields.lessons", "customFields.root_cause"]);
    expect(paths(await failure(t.kit.cases.update(admin, c.id, { statusValue: "done", customFields: { ...c.customFields, root_cause: "Phish" } })))).toEqual(["customFields.lessons"]);
    const done = await t.kit.cases.update(admin, c.id, { statusValue: "done", customFields: { ...c.customFields, root_cause: "Phish", lessons: "MFA everywhere" } });
    expect(done.statusValue).toBe("done");
    expect((await t.kit.cases.list(admin, { "cf.vectors": "web" })).data.map((x) => x.id)).toEqual([c.id]);
  });
});
