/**
 * Custom fields of tasks and observables: the mechanism cases and alerts use (values checked
 * against the scope's definitions, indexed for `cf.` filters, hidden above a field's TLP floor,
 * gating status moves), on every write and read path of the two kinds.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode, Principal } from "../../core/index.js";
import { addUser, makeTestKit, principalFor } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; paths: string[]; unmet: string[] | undefined }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; errors?: { path: string }[]; unmet?: string[] };
    return { code: e.code, paths: (e.errors ?? []).map((x) => x.path).sort(), unmet: e.unmet };
  }
  throw new Error("expected a failure");
}

describe("custom fields of tasks", () => {
  let t: TestKit;
  let admin: Principal;
  let caseId: string;
  beforeEach(async () => {
    t = await makeTestKit();
    admin = t.admin;
    caseId = (await t.kit.cases.create(admin, { title: "Phishing", severity: 2, tlp: 2 })).id;
  });

  async function defineTaskFields() {
    await t.kit.customFields.create(admin, { key: "effort", label: "Effort", scopes: ["task"], type: "enum", options: [{ id: "s", label: "S" }, { id: "m", label: "M" }, { id: "l", label: "L" }], defaultValue: "m", filterable: true });
    await t.kit.customFields.create(admin, { key: "hours", label: "Hours", scopes: ["task"], type: "number", bounds: { min: 0, max: 1000 }, filterable: true });
    await t.kit.customFields.create(admin, { key: "ticket", label: "Ticket", scopes: ["task"], type: "string", required: { onCreate: true }, filterable: true });
    await t.kit.customFields.create(admin, { key: "outcome", label: "Outcome", scopes: ["task"], type: "text", required: { onClose: true } });
    await t.kit.customFields.create(admin, { key: "informant", label: "Informant", scopes: ["task"], type: "string", tlpFloor: 4, filterable: true });
  }

  it("keeps task values free-form until the organization defines a task field; a case field does not switch tasks", async () => {
    expect((await t.kit.tasks.create(admin, caseId, { title: "Free", customFields: { anything: [1, { a: true }] } })).customFields).toEqual({ anything: [1, { a: true }] });
    await t.kit.customFields.create(admin, { key: "impact", label: "Impact", scopes: ["case", "observable"], type: "string" });
    expect((await t.kit.tasks.create(admin, caseId, { title: "Still free", customFields: { other: 1 } })).customFields).toEqual({ other: 1 });
  });

  it("validates create and PATCH against the task definitions: types, options, bounds, required on create, the default, unknown keys", async () => {
    await defineTaskFields();
    const created = await t.kit.tasks.create(admin, caseId, { title: "Typed", customFields: { ticket: "INC-1", hours: 2.5 } });
    expect(created.customFields).toEqual({ ticket: "INC-1", hours: 2.5, effort: "m" });
    expect(await t.kit.tasks.get(admin, created.id)).toEqual(created);

    const bad = await failure(t.kit.tasks.create(admin, caseId, { title: "Bad", customFields: { effort: "xl", hours: -1, free_key: 1 } }));
    expect(bad).toMatchObject({ code: "validation_failed", paths: ["customFields.effort", "customFields.free_key", "customFields.hours", "customFields.ticket"] });
    // PATCH replaces the whole set; null clears; a value that does not fit changes nothing.
    expect(await failure(t.kit.tasks.update(admin, created.id, { customFields: { ticket: 7 } }))).toMatchObject({ code: "validation_failed", paths: ["customFields.ticket"] });
    const changed = await t.kit.tasks.update(admin, created.id, { customFields: { ticket: "INC-2", effort: "l", hours: null } });
    expect(changed.customFields).toEqual({ ticket: "INC-2", effort: "l" });
    expect((await t.kit.tasks.list(admin, {})).data.filter((x) => x.id === created.id).map((x) => x.customFields)).toEqual([{ ticket: "INC-2", effort: "l" }]);
    expect((await t.kit.tasks.list(admin, {})).data).toHaveLength(1);
  });

  it("filters GET /tasks and a case's tasks by cf.<key>, kept current by every write, only on filterable fields", async () => {
    await defineTaskFields();
    const other = (await t.kit.cases.create(admin, { title: "Other", severity: 1 })).id;
    const a = await t.kit.tasks.create(admin, caseId, { title: "A", customFields: { ticket: "INC-1", effort: "s", hours: 3 } });
    const b = await t.kit.tasks.create(admin, caseId, { title: "B", customFields: { ticket: "INC-2", hours: 3 } });
    const c = await t.kit.tasks.create(admin, other, { title: "C", customFields: { ticket: "INC-3", effort: "s" } });
    const ids = async (query: Record<string, unknown>) => (await t.kit.tasks.list(admin, query)).data.map((x) => x.id);
    expect(await ids({ "cf.effort": "s" })).toEqual([c.id, a.id]);
    expect(await ids({ "cf.hours": "3", "cf.effort": "m" })).toEqual([b.id]);
    expect(await ids({ "cf.hours": "3.0" })).toEqual([b.id, a.id]);
    expect((await t.kit.tasks.listOf(admin, caseId, { "cf.effort": "s" })).data.map((x) => x.id)).toEqual([a.id]);
    await t.kit.tasks.update(admin, a.id, { customFields: { ticket: "INC-1", effort: "l" } });
    expect(await ids({ "cf.effort": "s" })).toEqual([c.id]);
    expect(await ids({ "cf.effort": "l" })).toEqual([a.id]);
    expect((await failure(t.kit.tasks.list(admin, { "cf.outcome": "x" }))).paths).toEqual(["cf.outcome"]);
    expect((await failure(t.kit.tasks.listOf(admin, caseId, { "cf.nope": "x" }))).paths).toEqual(["cf.nope"]);
  });

  it("bulk: fields.customFields sets only the named fields on each task (null clears), checked once; selectAll filters by custom field value", async () => {
    await defineTaskFields();
    const a = await t.kit.tasks.create(admin, caseId, { title: "A", customFields: { ticket: "INC-1", effort: "s", hours: 1 } });
    const b = await t.kit.tasks.create(admin, caseId, { title: "B", customFields: { ticket: "INC-2", effort: "l", hours: 2 } });
    const untouched = await t.kit.tasks.create(admin, caseId, { title: "C", customFields: { ticket: "INC-3", effort: "l" } });

    const refused = await failure(t.kit.tasks.bulkUpdate(admin, { ids: [a.id], fields: { customFields: { effort: "xl", nope: 1 } } }));
    expect(refused).toMatchObject({ code: "validation_failed", paths: ["customFields.effort", "customFields.nope"] });
    expect((await failure(t.kit.tasks.bulkUpdate(admin, { options: { selectAll: true, filters: { customFields: { outcome: "x" } } }, fields: { title: "T" } }))).code).toBe("unknown_reference");

    const result = await t.kit.tasks.bulkUpdate(admin, { ids: [a.id, b.id], fields: { customFields: { effort: "m", hours: null } } });
    expect(result).toMatchObject({ matched: 2, updated: 2, skipped: [] });
    expect((await t.kit.tasks.get(admin, a.id)).customFields).toEqual({ ticket: "INC-1", effort: "m" });
    expect((await t.kit.tasks.get(admin, b.id)).customFields).toEqual({ ticket: "INC-2", effort: "m" });
    expect((await t.kit.tasks.list(admin, { "cf.effort": "m" })).data.map((x) => x.id)).toEqual([b.id, a.id]);
    expect((await t.kit.tasks.list(admin, { "cf.hours": "1" })).data).toEqual([]);

    const selected = await t.kit.tasks.bulkUpdate(admin, { options: { selectAll: true, filters: { customFields: { effort: "l" } } }, fields: { assigneeId: admin.userId } });
    expect(selected).toMatchObject({ matched: 1, updated: 1 });
    expect((await t.kit.tasks.get(admin, untouched.id)).assigneeId).toBe(admin.userId);
    expect((await t.kit.tasks.get(admin, a.id)).assigneeId).toBeNull();
  });

  it("never shows a value above the caller's clearance: answers, lists, filters, bulk, events and audit", async () => {
    await defineTaskFields();
    const low = principalFor(admin, { tlpClearance: 3 });
    const task = await t.kit.tasks.create(admin, caseId, { title: "Secret", tlp: 2, customFields: { ticket: "INC-9", informant: "Deep Throat" } });
    expect(task.customFields.informant).toBe("Deep Throat");
    expect((await t.kit.tasks.get(low, task.id)).customFields).toEqual({ ticket: "INC-9", effort: "m" });
    expect((await t.kit.tasks.list(low, {})).data[0]!.customFields).not.toHaveProperty("informant");
    expect((await t.kit.tasks.listOf(low, caseId, {})).data[0]!.customFields).not.toHaveProperty("informant");
    expect((await failure(t.kit.tasks.list(low, { "cf.informant": "Deep Throat" }))).paths).toEqual(["cf.informant"]);
    // A low caller neither sets nor clears it; their writes keep it, and their answers leave it out.
    expect((await failure(t.kit.tasks.update(low, task.id, { customFields: { informant: "x" } }))).paths).toEqual(["customFields.informant"]);
    expect((await failure(t.kit.tasks.bulkUpdate(low, { ids: [task.id], fields: { customFields: { informant: null } } }))).paths).toEqual(["customFields.informant"]);
    expect((await t.kit.tasks.update(low, task.id, { customFields: { ticket: "INC-10" } })).customFields).toEqual({ ticket: "INC-10" });
    await t.kit.tasks.bulkUpdate(low, { ids: [task.id], fields: { customFields: { effort: "s" } } });
    expect((await t.kit.tasks.delete(low, task.id)).customFields).toEqual({ ticket: "INC-10", effort: "s" });
    const stored = await t.kit.storage.read((tx) => tx.tasks.findMany(t.organizationId, [task.id]));
    expect(stored).toEqual([]);
    // Events and audit entries (TLP 2) never carried it: create, update, bulk, delete.
    const [events, audit] = await t.kit.storage.read(async (tx) => [await tx.events.list(t.organizationId, { limit: 50 }), await tx.audit.list(t.organizationId, { limit: 50 })] as const);
    const taskEvents = events.filter((e) => e.name.startsWith("task."));
    expect(taskEvents.map((e) => e.name).sort()).toEqual(["task.created", "task.deleted", "task.updated", "task.updated"]);
    expect(JSON.stringify(taskEvents)).toContain("INC-10");
    expect(JSON.stringify(taskEvents)).not.toContain("Deep Throat");
    expect(JSON.stringify(audit.filter((e) => e.target.type === "task"))).not.toContain("Deep Throat");
  });

  it("gates task moves: required on close, required on entering, and field:customFields gates, on PATCH, transitions and bulk", async () => {
    await defineTaskFields();
    await t.kit.customFields.create(admin, { key: "owner_team", label: "Owner team", scopes: ["task"], type: "string", required: { onEnter: ["in_progress"] } });
    const task = await t.kit.tasks.create(admin, caseId, { title: "Gated", customFields: { ticket: "INC-1" } });
    expect(await failure(t.kit.tasks.update(admin, task.id, { status: "in_progress" }))).toMatchObject({ code: "required_fields_unset", paths: ["customFields.owner_team"], unmet: ["field:customFields.owner_team"] });
    const options = await t.kit.transitions.list(admin, "task", task.id);
    expect(options.data.find((o) => o.to === "in_progress")?.unmet).toEqual(["field:customFields.owner_team"]);
    expect(options.data.find((o) => o.to === "completed")?.unmet).toEqual(["field:customFields.outcome"]);
    await t.kit.transitions.perform(admin, "task", task.id, { to: "in_progress", fields: { customFields: { ticket: "INC-1", owner_team: "soc" } } });
    expect(await failure(t.kit.tasks.update(admin, task.id, { status: "completed" }))).toMatchObject({ code: "required_fields_unset", paths: ["customFields.outcome"] });
    // Bulk: the task lacking the field is skipped, the one that has it moves.
    const ready = await t.kit.tasks.create(admin, caseId, { title: "Ready", status: "in_progress", customFields: { ticket: "INC-2", outcome: "Done", owner_team: "soc" } });
    const moved = await t.kit.tasks.bulkUpdate(admin, { ids: [task.id, ready.id], fields: { status: "completed" } });
    expect(moved).toMatchObject({ updated: 1, skipped: [{ id: task.id, code: "transition_blocked" }] });
    expect((await t.kit.tasks.update(admin, task.id, { status: "completed", customFields: { ticket: "INC-1", owner_team: "soc", outcome: "Reset" } })).status).toBe("completed");

    // A lifecycle's own field:customFields gate on a task transition.
    await t.kit.lifecycles.publish(admin, "task", {
      statuses: [
        { key: "todo", label: "To do", category: "new", final: false, color: null },
        { key: "done", label: "Done", category: "closed", final: true, color: null },
      ],
      transitions: [{ from: ["todo"], to: "done", requires: ["field:customFields.hours"] }],
      mapping: { waiting: "todo", in_progress: "todo", completed: "done", cancelled: "done" },
    });
    const next = await t.kit.tasks.create(admin, caseId, { title: "Hours", customFields: { ticket: "INC-3", outcome: "ok" } });
    expect(await failure(t.kit.tasks.update(admin, next.id, { status: "done" }))).toMatchObject({ code: "transition_blocked", unmet: ["field:customFields.hours"] });
    expect((await t.kit.tasks.update(admin, next.id, { status: "done", customFields: { ticket: "INC-3", outcome: "ok", hours: 1 } })).status).toBe("done");
  });

  it("answers the task and observable JSON Schemas", async () => {
    await defineTaskFields();
    await t.kit.customFields.create(admin, { key: "verdict", label: "Verdict", scopes: ["observable"], type: "enum", options: [{ id: "benign", label: "Benign" }, { id: "malicious", label: "Malicious" }] });
    const task = await t.kit.customFields.schema(principalFor(admin, { tlpClearance: 3 }), { scope: "task" });
    expect(task).toMatchObject({ title: "customFields of a task", additionalProperties: false, required: ["ticket"] });
    expect(Object.keys(task.properties as object).sort()).toEqual(["effort", "hours", "outcome", "ticket"]);
    const observable = await t.kit.customFields.schema(admin, { scope: "observable" });
    expect(observable.properties).toEqual({ verdict: { title: "Verdict", anyOf: [{ oneOf: [{ const: "benign", title: "Benign" }, { const: "malicious", title: "Malicious" }] }, { type: "null" }] } });
  });
});

describe("custom fields of observables", () => {
  let t: TestKit;
  let admin: Principal;
  let caseId: string;
  beforeEach(async () => {
    t = await makeTestKit();
    admin = t.admin;
    caseId = (await t.kit.cases.create(admin, { title: "Phishing", severity: 2, tlp: 2 })).id;
    await t.kit.customFields.create(admin, { key: "verdict", label: "Verdict", scopes: ["observable"], type: "enum", options: [{ id: "benign", label: "Benign" }, { id: "malicious", label: "Malicious" }], filterable: true });
    await t.kit.customFields.create(admin, { key: "first_seen", label: "First seen", scopes: ["observable"], type: "date", filterable: true });
    await t.kit.customFields.create(admin, { key: "confidence", label: "Confidence", scopes: ["observable"], type: "integer", bounds: { min: 0, max: 100 }, defaultValue: 50 });
    await t.kit.customFields.create(admin, { key: "source_name", label: "Source", scopes: ["observable"], type: "string", tlpFloor: 4 });
  });
  const onCase = () => ({ kind: "case" as const, id: caseId });

  it("validates create and PATCH, applies defaults, and filters the parent's and the organization's lists by cf.<key>", async () => {
    const ip = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1", customFields: { verdict: "malicious", first_seen: "2026-03-01" } });
    expect(ip.customFields).toEqual({ verdict: "malicious", first_seen: "2026-03-01", confidence: 50 });
    const domain = await t.kit.observables.create(admin, onCase(), { dataType: "domain", data: "evil.example", customFields: { verdict: "benign" } });
    const bad = await failure(t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.2", customFields: { verdict: "maybe", first_seen: "2026-13-01", confidence: 101, other: true } }));
    expect(bad).toMatchObject({ code: "validation_failed", paths: ["customFields.confidence", "customFields.first_seen", "customFields.other", "customFields.verdict"] });
    expect((await failure(t.kit.observables.update(admin, ip.id, { customFields: { verdict: "nope" } }))).paths).toEqual(["customFields.verdict"]);

    const ids = async (query: Record<string, unknown>) => (await t.kit.observables.list(admin, query)).data.map((o) => o.id);
    expect(await ids({ "cf.verdict": "malicious" })).toEqual([ip.id]);
    expect((await t.kit.observables.listOf(admin, onCase(), { "cf.verdict": "benign" })).data.map((o) => o.id)).toEqual([domain.id]);
    expect(await ids({ "cf.first_seen": "2026-03-01", "cf.verdict": "malicious" })).toEqual([ip.id]);
    const changed = await t.kit.observables.update(admin, ip.id, { customFields: { verdict: "benign" } });
    expect(changed.customFields).toEqual({ verdict: "benign" });
    expect(await ids({ "cf.verdict": "malicious" })).toEqual([]);
    expect(await ids({ "cf.verdict": "benign" })).toEqual([domain.id, ip.id]);
    expect((await failure(t.kit.observables.list(admin, { "cf.confidence": "50" }))).paths).toEqual(["cf.confidence"]);
  });

  it("a duplicate fills in the fields the first report left unset, never replaces a value; ingestion and promotion carry values", async () => {
    const first = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1", customFields: { verdict: "malicious" } });
    const again = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1", customFields: { verdict: "benign", first_seen: "2026-02-02" } });
    expect(again).toMatchObject({ id: first.id, deduplicated: true, customFields: { verdict: "malicious", confidence: 50, first_seen: "2026-02-02" } });

    // Alert ingestion checks each observable's values, and the answer shows them.
    const refused = await failure(t.kit.alerts.create(admin, { title: "A", severity: 1, source: "siem", observables: [{ dataType: "ip", data: "192.0.2.9", customFields: { verdict: "maybe" } }] }));
    expect(refused).toMatchObject({ code: "validation_failed", paths: ["customFields.verdict"] });
    const ingested = await t.kit.alerts.create(admin, { title: "A", severity: 1, source: "siem", tlp: 2, observables: [{ dataType: "ip", data: "192.0.2.9", customFields: { verdict: "malicious", source_name: "Informant" } }] });
    expect(ingested.observables.map((o) => o.customFields)).toEqual([{ verdict: "malicious", source_name: "Informant", confidence: 50 }]);
    const promoted = await t.kit.alerts.promote(principalFor(admin, { tlpClearance: 3 }), ingested.id, {});
    expect(promoted.observables.created.map((o) => o.customFields)).toEqual([{ verdict: "malicious", confidence: 50 }]);
    const copy = (await t.kit.observables.listOf(admin, { kind: "case", id: promoted.case.id }, { "cf.verdict": "malicious" })).data;
    expect(copy.map((o) => o.customFields)).toEqual([{ verdict: "malicious", source_name: "Informant", confidence: 50 }]);
  });

  it("never shows a value above the caller's clearance: answers, lists, events and audit", async () => {
    const low = principalFor(admin, { tlpClearance: 3 });
    const created = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1", tlp: 2, customFields: { verdict: "malicious", source_name: "Deep Throat" } });
    expect(created.customFields.source_name).toBe("Deep Throat");
    expect((await t.kit.observables.get(low, created.id)).customFields).toEqual({ verdict: "malicious", confidence: 50 });
    expect((await t.kit.observables.list(low, {})).data[0]!.customFields).not.toHaveProperty("source_name");
    expect((await t.kit.observables.listOf(low, onCase(), {})).data[0]!.customFields).not.toHaveProperty("source_name");
    expect((await failure(t.kit.observables.update(low, created.id, { customFields: { source_name: null } }))).paths).toEqual(["customFields.source_name"]);
    expect((await t.kit.observables.update(low, created.id, { customFields: { verdict: "benign" } })).customFields).toEqual({ verdict: "benign" });
    // The low caller's duplicate report (its default filling the field their PATCH cleared) answers without the hidden value.
    expect((await t.kit.observables.create(low, onCase(), { dataType: "ip", data: "192.0.2.1" })).customFields).toEqual({ verdict: "benign", confidence: 50 });
    expect((await t.kit.observables.get(admin, created.id)).customFields).toEqual({ verdict: "benign", source_name: "Deep Throat", confidence: 50 });
    const [events, audit] = await t.kit.storage.read(async (tx) => [await tx.events.list(t.organizationId, { limit: 50 }), await tx.audit.list(t.organizationId, { limit: 50 })] as const);
    const observableEvents = events.filter((e) => e.name.startsWith("observable."));
    expect(observableEvents.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(observableEvents)).toContain("malicious");
    expect(JSON.stringify(observableEvents)).not.toContain("Deep Throat");
    expect(JSON.stringify(audit.filter((e) => e.target.type === "observable"))).not.toContain("Deep Throat");
  });
});

describe("custom field values of tasks with users", () => {
  it("checks a task's user field against the organization's active users", async () => {
    const t = await makeTestKit();
    const caseId = (await t.kit.cases.create(t.admin, { title: "C", severity: 1 })).id;
    await t.kit.customFields.create(t.admin, { key: "reviewer", label: "Reviewer", scopes: ["task"], type: "user" });
    const user = await addUser(t.kit, t.organizationId);
    expect((await t.kit.tasks.create(t.admin, caseId, { title: "Review", customFields: { reviewer: user.id } })).customFields).toEqual({ reviewer: user.id });
    expect((await failure(t.kit.tasks.create(t.admin, caseId, { title: "Review", customFields: { reviewer: "user_00000000000000000000000000" } }))).paths).toEqual(["customFields.reviewer"]);
  });
});
