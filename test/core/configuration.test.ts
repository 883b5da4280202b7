import { beforeEach, describe, expect, it } from "vitest";
import type { Configuration, ErrorCode } from "../../core/index.js";
import { addOrganization, makeTestKit } from "../helpers/kit.js";
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

/** The organization: a lifecycle with an on_hold status, a type with two required-on-close fields, a multi_enum. */
async function shapeOrganization(t: TestKit) {
  const admin = t.admin;
  await t.kit.customFields.create(admin, { key: "root_cause", label: "Root cause", scopes: ["case"], type: "text", required: { onClose: true } });
  await t.kit.customFields.create(admin, { key: "impact", label: "Impact", scopes: ["case", "alert"], type: "enum", options: [{ id: "low", label: "Low" }, { id: "high", label: "High" }], required: { onClose: true }, filterable: true });
  await t.kit.customFields.create(admin, { key: "vectors", label: "Vectors", scopes: ["case"], type: "multi_enum", options: [{ id: "email", label: "Email" }, { id: "web", label: "Web" }], bounds: { max: 2 }, tlpFloor: 3 });
  await t.kit.caseTypes.create(admin, { key: "phishing", label: "Phishing", defaultTlp: 2, customFields: ["root_cause", "impact"] });
  const legacy = await t.kit.caseTypes.create(admin, { key: "legacy", label: "Legacy" });
  await t.kit.caseTypes.update(admin, legacy.id, { archived: true });
  await t.kit.lifecycles.publish(admin, "case", {
    statuses: [
      { key: "triage", label: "Triage", category: "new", final: false },
      { key: "investigating", label: "Investigating", category: "in_progress", final: false },
      { key: "waiting_customer", label: "Waiting for customer", category: "on_hold", final: false, color: "#ffaa00" },
      { key: "contained", label: "Contained", category: "resolved", final: false },
      { key: "closed", label: "Closed", category: "closed", final: true },
    ],
    transitions: [
      { from: ["triage"], to: "investigating" },
      { from: ["investigating"], to: "waiting_customer" },
      { from: ["waiting_customer"], to: "investigating" },
      { from: ["investigating"], to: "contained", requires: ["reason"] },
      { from: ["contained"], to: "closed", roles: ["admin"], requires: ["field:customFields.root_cause"] },
    ],
  });
  // Names a status of the published lifecycle: an import must check it against the document's lifecycles.
  await t.kit.customFields.create(admin, { key: "customer_ref", label: "Customer reference", scopes: ["case"], type: "string", required: { onEnter: ["waiting_customer"] } });
}

describe("configuration as code", () => {
  let t: TestKit;
  beforeEach(async () => {
    t = await makeTestKit();
  });

  it("exports keys, not ids or timestamps, sorted by key", async () => {
    await shapeOrganization(t);
    const exported = await t.kit.configuration.export(t.admin);
    expect(exported.version).toBe(1);
    expect(exported.customFields.map((f) => f.key)).toEqual(["customer_ref", "impact", "root_cause", "vectors"]);
    expect(exported.caseTypes.map((c) => [c.key, c.archived])).toEqual([["legacy", true], ["phishing", false]]);
    expect(exported.lifecycles.case.statuses.map((s) => s.key)).toEqual(["triage", "investigating", "waiting_customer", "contained", "closed"]);
    // Option ids stay: values store them. Definitions carry no id, owner or timestamp.
    expect(JSON.stringify(exported)).not.toMatch(/"(createdAt|updatedAt|createdBy|organizationId|archivedAt|mapping)":/);
    for (const entry of [...exported.customFields, ...exported.caseTypes]) expect(entry).not.toHaveProperty("id");
  });

  it("round-trips: export, import into a fresh organization, export again is equal", async () => {
    await shapeOrganization(t);
    const exported = await t.kit.configuration.export(t.admin);
    const other = await addOrganization(t.kit, "Other SOC");
    const changes = await t.kit.configuration.import(other.admin, JSON.parse(JSON.stringify(exported)));
    expect(changes.lifecycles).toEqual({ case: "published", alert: "unchanged", task: "unchanged" });
    expect(changes.customFields.created).toEqual(["customer_ref", "impact", "root_cause", "vectors"]);
    expect(changes.caseTypes.created).toEqual(["legacy", "phishing"]);
    expect(await t.kit.configuration.export(other.admin)).toEqual(exported);
    const events = await t.kit.storage.read((tx) => tx.events.list(other.organizationId, { limit: 100 }));
    expect(events.filter((e) => e.name === "custom_field.created")).toHaveLength(4);
    expect(events.filter((e) => e.name === "case_type.created")).toHaveLength(2);
    expect(events.filter((e) => e.name === "lifecycle.published")).toHaveLength(1);
    const audit = await t.kit.storage.read((tx) => tx.audit.list(other.organizationId, { limit: 100 }));
    expect(audit.filter((a) => a.action === "case_type.created")).toHaveLength(2);
  });

  it("is idempotent: PUT of a GET's output changes nothing and publishes no version", async () => {
    await shapeOrganization(t);
    const exported = await t.kit.configuration.export(t.admin);
    const eventsBefore = await t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 1000 }));
    const changes = await t.kit.configuration.import(t.admin, exported);
    expect(changes).toEqual({
      lifecycles: { case: "unchanged", alert: "unchanged", task: "unchanged" },
      caseLifecycles: { published: [], unchanged: [] },
      caseTypes: { created: [], updated: [], unchanged: ["legacy", "phishing"] },
      customFields: { created: [], updated: [], unchanged: ["customer_ref", "impact", "root_cause", "vectors"] },
    });
    expect((await t.kit.lifecycles.versions(t.admin, "case", {})).data).toHaveLength(1);
    expect(await t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 1000 }))).toHaveLength(eventsBefore.length);
  });

  it("updates by key, keeps what the document omits, and reports each outcome", async () => {
    await shapeOrganization(t);
    const doc = await t.kit.configuration.export(t.admin);
    doc.customFields = doc.customFields.filter((f) => f.key !== "vectors").map((f) => (f.key === "impact" ? { ...f, label: "Business impact" } : f));
    doc.caseTypes.push({ key: "malware", label: "Malware", customFields: ["impact"], archived: false });
    doc.lifecycles.task.statuses = doc.lifecycles.task.statuses.map((s) => ({ ...s, label: `${s.label}!` }));
    const changes = await t.kit.configuration.import(t.admin, doc);
    expect(changes.customFields).toEqual({ created: [], updated: ["impact"], unchanged: ["customer_ref", "root_cause"] });
    expect(changes.caseTypes).toEqual({ created: ["malware"], updated: [], unchanged: ["legacy", "phishing"] });
    expect(changes.lifecycles).toEqual({ case: "unchanged", alert: "unchanged", task: "published" });
    const after = await t.kit.configuration.export(t.admin);
    expect(after.customFields.map((f) => [f.key, f.label])).toEqual([["customer_ref", "Customer reference"], ["impact", "Business impact"], ["root_cause", "Root cause"], ["vectors", "Vectors"]]);
  });

  it("a bad document changes nothing and lists every error by JSON path", async () => {
    await shapeOrganization(t);
    const before = await t.kit.configuration.export(t.admin);
    const eventsBefore = await t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 1000 }));
    const doc: Configuration = structuredClone(before);
    doc.customFields.push({ key: "new_field", label: "New", scopes: ["case"], type: "string", options: [], bounds: {}, required: { onCreate: false, onClose: false, onEnter: [] }, filterable: false, archived: false });
    doc.customFields = doc.customFields.map((f) => (f.key === "root_cause" ? { ...f, type: "string" } : f.key === "impact" ? { ...f, label: "Changed", options: [{ id: "low", label: "Low", deprecated: false }] } : f));
    doc.caseTypes.push({ key: "malware", label: "Malware", customFields: ["nope"], archived: false });
    doc.lifecycles.alert.statuses = doc.lifecycles.alert.statuses.filter((s) => s.key !== "imported");
    // A gate naming no field, and a field required on entering a status no lifecycle of the document has.
    doc.lifecycles.case.transitions[0] = { ...doc.lifecycles.case.transitions[0]!, requires: ["field:customFields.missing"] };
    doc.customFields[0] = { ...doc.customFields[0]!, required: { onCreate: false, onClose: false, onEnter: ["nowhere"] } };
    const failed = await failure(t.kit.configuration.import(t.admin, doc));
    expect(failed.code).toBe("invalid_configuration");
    const paths = failed.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["customFields.0.required.onEnter.0", "customFields.1.options", "customFields.2.type", "caseTypes.2.customFields.0", "lifecycles.alert.statuses", "lifecycles.case.transitions.0.requires.0"]));
    expect(await t.kit.configuration.export(t.admin)).toEqual(before);
    expect(await t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 1000 }))).toHaveLength(eventsBefore.length);
  });

  it("a document of the wrong shape is validation_failed by path; only admins read or apply it", async () => {
    const exported = await t.kit.configuration.export(t.admin);
    const failed = await failure(t.kit.configuration.import(t.admin, { ...exported, version: 2, caseTypes: [{ key: "x" }] }));
    expect(failed.code).toBe("validation_failed");
    expect(failed.errors.map((e) => e.path)).toEqual(expect.arrayContaining(["version", "caseTypes.0.label"]));
    const reader = { ...t.admin, scopes: new Set(["cases:read"]) } as typeof t.admin;
    expect((await failure(t.kit.configuration.export(reader))).code).toBe("missing_scope");
    expect((await failure(t.kit.configuration.import(reader, exported))).code).toBe("missing_scope");
  });
});
