import { beforeEach, describe, expect, it } from "vitest";
import type { Case, LifecycleStatus, LifecycleTransition, Principal, StatusChange } from "../../core/index.js";
import type { TestKit } from "../helpers/kit.js";
import { addUser, makeTestKit, principalFor } from "../helpers/kit.js";
import { refusal } from "../helpers/refusal.js";

/** A short lifecycle for phishing cases: reported → analysing → (waiting) → done, done final. */
const quickStatuses: LifecycleStatus[] = [
  { key: "reported", label: "Reported", category: "new", final: false, color: null },
  { key: "analysing", label: "Analysing", category: "in_progress", final: false, color: null },
  { key: "waiting", label: "Waiting", category: "on_hold", final: false, color: null },
  { key: "done", label: "Done", category: "closed", final: true, color: null },
];
const quickTransitions: LifecycleTransition[] = [
  { from: ["reported"], to: "analysing" },
  { from: ["analysing"], to: "waiting" },
  { from: ["waiting"], to: "analysing" },
  { from: ["analysing", "waiting"], to: "done", requires: ["no_open_mandatory_tasks"] },
  { from: ["done"], to: "analysing", roles: ["admin"] },
];
const quick = { statuses: quickStatuses, transitions: quickTransitions };

describe("a case type's lifecycle", () => {
  let t: TestKit;
  let analyst: Principal;
  const history = async (id: string): Promise<StatusChange[]> => (await t.kit.transitions.history(t.admin, "case", id, {})).data;
  const phishingCase = (fields: Record<string, unknown> = {}): Promise<Case> => t.kit.cases.create(t.admin, { title: "Phish", severity: 2, typeValue: "phishing", ...fields });

  beforeEach(async () => {
    t = await makeTestKit();
    const user = await addUser(t.kit, t.organizationId, { role: "analyst" });
    analyst = principalFor(t.admin, { userId: user.id, role: "analyst", keyId: null });
  });

  describe("named case lifecycles", () => {
    it("are published, read, listed and versioned per key; default names the default one; unknown keys are not_found", async () => {
      expect((await refusal(t.kit.lifecycles.get(t.admin, "case", "quick"))).code).toBe("not_found");
      expect((await refusal(t.kit.lifecycles.versions(t.admin, "case", {}, "quick"))).code).toBe("not_found");
      const v1 = await t.kit.lifecycles.publish(t.admin, "case", quick, "quick");
      expect(v1).toMatchObject({ entity: "case", key: "quick", version: 1, mapping: {} });
      expect(await t.kit.lifecycles.get(analyst, "case", "quick")).toEqual(v1);
      // The default lifecycle is untouched and still version 0.
      expect(await t.kit.lifecycles.get(t.admin, "case")).toMatchObject({ key: "default", version: 0 });
      expect(await t.kit.lifecycles.get(t.admin, "case", "default")).toEqual(await t.kit.lifecycles.get(t.admin, "case"));
      const v2 = await t.kit.lifecycles.publish(t.admin, "case", { ...quick, statuses: quickStatuses.map((s) => ({ ...s, label: `${s.label}.` })) }, "quick");
      expect(v2.version).toBe(2);
      expect((await t.kit.lifecycles.versions(t.admin, "case", {}, "quick")).data.map((v) => v.version)).toEqual([2, 1]);
      expect((await t.kit.lifecycles.versions(t.admin, "case", {})).data).toEqual([]);
      expect((await t.kit.lifecycles.listCase(analyst)).data.map((l) => [l.key, l.version])).toEqual([["default", 0], ["quick", 2]]);
      // Only cases have named lifecycles; keys have a shape; publishing is the admins'.
      expect((await refusal(t.kit.lifecycles.publish(t.admin, "task", quick, "quick"))).code).toBe("not_found");
      expect(await refusal(t.kit.lifecycles.publish(t.admin, "case", quick, "Not A Key"))).toMatchObject({ code: "validation_failed" });
      const writer = principalFor(t.admin, { scopes: new Set(["cases:read", "cases:write"]) });
      expect((await refusal(t.kit.lifecycles.publish(writer, "case", quick, "other"))).code).toBe("missing_scope");
      expect((await refusal(t.kit.lifecycles.publish(t.admin, "case", { ...quick, statuses: quickStatuses.slice(1) }, "broken"))).code).toBe("invalid_lifecycle");
    });

    it("an organization has at most 50 named case lifecycles, so their list is one page", async () => {
      for (let n = 0; n < 50; n++) await t.kit.lifecycles.publish(t.admin, "case", quick, `named-${n}`);
      expect((await refusal(t.kit.lifecycles.publish(t.admin, "case", quick, "one-too-many"))).code).toBe("conflict");
      // A new version of one it has is no new lifecycle.
      expect((await t.kit.lifecycles.publish(t.admin, "case", quick, "named-0")).version).toBe(2);
      const listed = await t.kit.lifecycles.listCase(t.admin);
      expect(listed.data).toHaveLength(51);
      expect(listed.nextCursor).toBeNull();
    });

    it("a case type names a lifecycle the organization has: 400 unknown_lifecycle otherwise, on create and update", async () => {
      expect(await refusal(t.kit.caseTypes.create(t.admin, { key: "phishing", label: "Phishing", lifecycle: "quick" }))).toEqual({ code: "unknown_lifecycle", paths: ["lifecycle"] });
      const plain = await t.kit.caseTypes.create(t.admin, { key: "plain", label: "Plain", lifecycle: "default" });
      expect(plain.lifecycle).toBe("default");
      expect(await refusal(t.kit.caseTypes.update(t.admin, plain.id, { lifecycle: "nope" }))).toEqual({ code: "unknown_lifecycle", paths: ["lifecycle"] });
      await t.kit.lifecycles.publish(t.admin, "case", quick, "quick");
      expect((await t.kit.caseTypes.create(t.admin, { key: "phishing", label: "Phishing", lifecycle: "quick" })).lifecycle).toBe("quick");
      expect((await t.kit.caseTypes.list(t.admin, {})).data.map((c) => c.key)).toEqual(["phishing", "plain"]);
    });
  });

  describe("a case of a type with a named lifecycle follows it everywhere", () => {
    beforeEach(async () => {
      await t.kit.lifecycles.publish(t.admin, "case", quick, "quick");
      await t.kit.caseTypes.create(t.admin, { key: "phishing", label: "Phishing", lifecycle: "quick" });
      await t.kit.caseTypes.create(t.admin, { key: "malware", label: "Malware" });
    });

    it("create, transitions, PATCH, history and filters use the type's lifecycle; other cases keep the default", async () => {
      const phish = await phishingCase();
      expect(phish.statusValue).toBe("reported");
      expect((await phishingCase({ statusValue: "analysing" })).statusValue).toBe("analysing");
      expect(await refusal(phishingCase({ statusValue: "in_progress" }))).toEqual({ code: "unknown_status", paths: ["statusValue"] });
      expect((await refusal(phishingCase({ statusValue: "done" }))).code).toBe("invalid_transition");
      const malware = await t.kit.cases.create(t.admin, { title: "Worm", severity: 3, typeValue: "malware" });
      expect(malware.statusValue).toBe("new");

      expect((await t.kit.transitions.list(t.admin, "case", phish.id)).data.map((o) => o.to)).toEqual(["analysing"]);
      expect((await t.kit.transitions.list(t.admin, "case", malware.id)).data.map((o) => o.to)).toEqual(["in_progress", "on_hold", "resolved", "closed"]);
      expect((await refusal(t.kit.cases.update(t.admin, phish.id, { statusValue: "in_progress" }))).code).toBe("unknown_status");
      expect((await refusal(t.kit.cases.update(t.admin, phish.id, { statusValue: "waiting" }))).code).toBe("invalid_transition");
      await t.kit.transitions.perform(t.admin, "case", phish.id, { to: "analysing", reason: "Looking" });
      await t.kit.cases.update(t.admin, phish.id, { statusValue: "waiting" });
      expect((await history(phish.id)).map((h) => [h.from, h.to, h.toCategory, h.reason])).toEqual([
        [null, "reported", "new", null],
        ["reported", "analysing", "in_progress", "Looking"],
        ["analysing", "waiting", "on_hold", null],
      ]);

      // Status filters take the statuses of every case lifecycle of the organization.
      expect((await t.kit.cases.list(t.admin, { statusValue: "waiting" })).data.map((c) => c.id)).toEqual([phish.id]);
      expect((await t.kit.cases.list(t.admin, { statusValue: ["new", "reported"] })).data.map((c) => c.id)).toEqual([malware.id]);
      expect((await refusal(t.kit.cases.list(t.admin, { statusValue: "nowhere" }))).code).toBe("unknown_status");
    });

    it("gates and closed-record rules come from the type's lifecycle: mandatory tasks, a frozen case, its frozen tasks, bulk", async () => {
      const phish = await phishingCase({ statusValue: "analysing" });
      const task = await t.kit.tasks.create(t.admin, phish.id, { title: "Reset", mandatory: true });
      expect((await t.kit.transitions.list(t.admin, "case", phish.id)).data.find((o) => o.to === "done")?.unmet).toEqual(["no_open_mandatory_tasks"]);
      expect((await refusal(t.kit.transitions.perform(t.admin, "case", phish.id, { to: "done" }))).code).toBe("mandatory_tasks_open");
      await t.kit.tasks.update(t.admin, task.id, { status: "completed" });
      const done = await t.kit.transitions.perform(t.admin, "case", phish.id, { to: "done" });
      expect(done).toMatchObject({ statusValue: "done", closedAt: expect.any(String) });
      // done is final and of the closed category in this lifecycle: the case and its tasks are frozen.
      expect((await refusal(t.kit.cases.update(t.admin, phish.id, { title: "Edited" }))).code).toBe("record_closed");
      expect((await refusal(t.kit.tasks.create(t.admin, phish.id, { title: "Late" }))).code).toBe("record_closed");
      const bulk = await t.kit.tasks.bulkUpdate(t.admin, { ids: [task.id], fields: { title: "Renamed" } });
      expect(bulk).toMatchObject({ matched: 1, updated: 0, skipped: [{ id: task.id, code: "record_closed" }] });
      // Reopening is this lifecycle's transition, for its roles.
      expect((await refusal(t.kit.transitions.perform(analyst, "case", phish.id, { to: "analysing" }))).code).toBe("invalid_transition");
      expect(await t.kit.transitions.perform(t.admin, "case", phish.id, { to: "analysing" })).toMatchObject({ statusValue: "analysing", closedAt: null });
    });

    it("promote starts the case in its type's lifecycle; merge refuses a case closed in it", async () => {
      const alert = await t.kit.alerts.create(t.admin, { title: "Reported mail", severity: 2, source: "mail", sourceRef: "m-1", typeValue: "phishing" });
      const promoted = await t.kit.alerts.promote(t.admin, alert.id, {});
      const promotedCase = await t.kit.cases.get(t.admin, promoted.case.id);
      expect(promotedCase).toMatchObject({ typeValue: "phishing", statusValue: "reported" });
      expect((await history(promotedCase.id))[0]).toMatchObject({ from: null, to: "reported", toCategory: "new" });
      expect((await refusal(t.kit.alerts.promote(t.admin, (await t.kit.alerts.create(t.admin, { title: "B", severity: 1, source: "mail", sourceRef: "m-2", typeValue: "phishing" })).id, { statusValue: "new" }))).code).toBe("unknown_status");

      const closed = await phishingCase({ statusValue: "analysing" });
      await t.kit.transitions.perform(t.admin, "case", closed.id, { to: "done" });
      const late = await t.kit.alerts.create(t.admin, { title: "Late", severity: 1, source: "mail", sourceRef: "m-3" });
      expect((await refusal(t.kit.alerts.merge(t.admin, late.id, { caseId: closed.id }))).code).toBe("record_closed");
    });

    it("changing a case's type to another lifecycle: the status carries over when it exists there, else the request names where it enters", async () => {
      // waiting exists only in quick; new only in the default.
      const worm = await t.kit.cases.create(t.admin, { title: "Worm", severity: 3, typeValue: "malware" });
      expect(await refusal(t.kit.cases.update(t.admin, worm.id, { typeValue: "phishing" }))).toEqual({ code: "status_not_in_lifecycle", paths: ["typeValue"] });
      expect((await t.kit.cases.get(t.admin, worm.id)).typeValue).toBe("malware");
      expect((await refusal(t.kit.cases.update(t.admin, worm.id, { typeValue: "phishing", statusValue: "in_progress" }))).code).toBe("unknown_status");
      expect((await refusal(t.kit.cases.update(t.admin, worm.id, { typeValue: "phishing", statusValue: "done" }))).code).toBe("invalid_transition");
      const moved = await t.kit.cases.update(t.admin, worm.id, { typeValue: "phishing", statusValue: "waiting" });
      expect(moved).toMatchObject({ typeValue: "phishing", statusValue: "waiting" });
      // The entry's categories come from each side's lifecycle.
      expect((await history(worm.id)).at(-1)).toMatchObject({ from: "new", to: "waiting", fromCategory: "new", toCategory: "on_hold" });
      // Back to the default lifecycle, through POST …/transitions: `to` is where it enters, a status of the default lifecycle.
      expect(await refusal(t.kit.transitions.perform(t.admin, "case", worm.id, { to: "waiting", fields: { typeValue: "malware" } }))).toEqual({ code: "unknown_status", paths: ["statusValue"] });
      const back = await t.kit.transitions.perform(t.admin, "case", worm.id, { to: "in_progress", reason: "Back to malware", fields: { typeValue: "malware" } });
      expect(back).toMatchObject({ typeValue: "malware", statusValue: "in_progress" });
      expect((await history(worm.id)).at(-1)).toMatchObject({ from: "waiting", to: "in_progress", fromCategory: "on_hold", toCategory: "in_progress", reason: "Back to malware" });

      // A status both lifecycles have carries over, and a move beside it is the new lifecycle's transition.
      await t.kit.lifecycles.publish(t.admin, "case", { ...quick, statuses: [...quickStatuses, { key: "in_progress", label: "In progress", category: "in_progress", final: false, color: null }], transitions: [...quickTransitions, { from: ["in_progress"], to: "done" }] }, "quick");
      expect(await t.kit.cases.update(t.admin, worm.id, { typeValue: "phishing" })).toMatchObject({ typeValue: "phishing", statusValue: "in_progress" });
      expect((await refusal(t.kit.cases.update(t.admin, worm.id, { typeValue: "malware", statusValue: "waiting" }))).code).toBe("unknown_status");

      // A closed case changes lifecycle only once reopened.
      const closed = await phishingCase({ statusValue: "analysing" });
      await t.kit.transitions.perform(t.admin, "case", closed.id, { to: "done" });
      expect((await refusal(t.kit.cases.update(t.admin, closed.id, { typeValue: "malware", statusValue: "in_progress" }))).code).toBe("record_closed");
    });

    it("entering a new lifecycle checks the fields required on entering the status it enters", async () => {
      await t.kit.customFields.create(t.admin, { key: "reporter", label: "Reporter", scopes: ["case"], type: "string", required: { onEnter: ["waiting"] } });
      const worm = await t.kit.cases.create(t.admin, { title: "Worm", severity: 3, typeValue: "malware" });
      expect(await refusal(t.kit.cases.update(t.admin, worm.id, { typeValue: "phishing", statusValue: "waiting" }))).toEqual({
        code: "required_fields_unset",
        paths: ["customFields.reporter"],
        unmet: ["field:customFields.reporter"],
      });
      expect((await t.kit.cases.update(t.admin, worm.id, { typeValue: "phishing", statusValue: "waiting", customFields: { reporter: "ana" } })).statusValue).toBe("waiting");
    });

    it("without statusValue, a change of type is refused when the new lifecycle lacks the status, and allowed when it has it", async () => {
      const phish = await phishingCase();
      expect(await refusal(t.kit.cases.update(t.admin, phish.id, { typeValue: "malware", title: "Renamed" }))).toEqual({ code: "status_not_in_lifecycle", paths: ["typeValue"] });
      expect(await t.kit.cases.get(t.admin, phish.id)).toMatchObject({ typeValue: "phishing", title: "Phish" });
    });

    it("a type's lifecycle changes only while none of its cases is in a status the new one lacks", async () => {
      const phish = await phishingCase({ statusValue: "analysing" });
      const type = (await t.kit.caseTypes.list(t.admin, {})).data.find((c) => c.key === "phishing")!;
      expect(await refusal(t.kit.caseTypes.update(t.admin, type.id, { lifecycle: null }))).toEqual({ code: "status_not_in_lifecycle", paths: ["lifecycle"] });
      await t.kit.cases.update(t.admin, phish.id, { typeValue: "malware", statusValue: "in_progress" });
      expect((await t.kit.caseTypes.update(t.admin, type.id, { lifecycle: null })).lifecycle).toBeNull();
    });

    it("publishing a named lifecycle that drops a status moves its own cases only, with history; the default's publication leaves them", async () => {
      const phish = await phishingCase({ statusValue: "analysing" });
      await t.kit.cases.update(t.admin, phish.id, { statusValue: "waiting" });
      const worm = await t.kit.cases.create(t.admin, { title: "Worm", severity: 3, typeValue: "malware" });
      // A default-lifecycle case in a status named like one the named lifecycle drops stays where it is.
      await t.kit.lifecycles.publish(
        t.admin,
        "case",
        { statuses: [...(await t.kit.lifecycles.get(t.admin, "case")).statuses, { key: "waiting", label: "Waiting", category: "on_hold", final: false }], transitions: [{ from: ["new"], to: "waiting" }, { from: ["waiting"], to: "closed" }] },
      );
      await t.kit.cases.update(t.admin, worm.id, { statusValue: "waiting" });

      const dropped = { statuses: quickStatuses.filter((s) => s.key !== "waiting"), transitions: quickTransitions.filter((x) => x.to !== "waiting" && !x.from.includes("waiting")) };
      expect(await refusal(t.kit.lifecycles.publish(t.admin, "case", dropped, "quick"))).toMatchObject({ code: "invalid_lifecycle", paths: ["mapping.waiting"] });
      await t.kit.lifecycles.publish(t.admin, "case", { ...dropped, mapping: { waiting: "analysing" } }, "quick");
      expect((await t.kit.cases.get(t.admin, phish.id)).statusValue).toBe("analysing");
      expect((await t.kit.cases.get(t.admin, worm.id)).statusValue).toBe("waiting");
      expect((await history(phish.id)).at(-1)).toMatchObject({ from: "waiting", to: "analysing", reason: "lifecycle remap" });
      expect((await history(worm.id)).at(-1)).toMatchObject({ from: "new", to: "waiting" });

      // The default lifecycle dropping a status no default case is in needs no mapping, whatever the named one's cases hold.
      await t.kit.cases.update(t.admin, worm.id, { statusValue: "closed" });
      await t.kit.lifecycles.publish(t.admin, "case", quick, "quick");
      await t.kit.cases.update(t.admin, phish.id, { statusValue: "waiting" });
      const base = await t.kit.lifecycles.get(t.admin, "case");
      await t.kit.lifecycles.publish(t.admin, "case", { statuses: base.statuses.filter((s) => s.key !== "waiting"), transitions: [{ from: ["new"], to: "closed" }] });
      expect((await t.kit.cases.get(t.admin, phish.id)).statusValue).toBe("waiting");
      expect((await history(phish.id)).at(-1)).toMatchObject({ from: "analysing", to: "waiting", reason: null });
    });
  });

  describe("defaultSeverity", () => {
    it("a case create may leave severity out when its type gives one; otherwise it is required as before", async () => {
      const type = await t.kit.caseTypes.create(t.admin, { key: "phishing", label: "Phishing", defaultSeverity: 3 });
      expect(type.defaultSeverity).toBe(3);
      await t.kit.caseTypes.create(t.admin, { key: "malware", label: "Malware" });
      expect((await t.kit.cases.create(t.admin, { title: "Phish", typeValue: "phishing" })).severity).toBe(3);
      expect((await t.kit.cases.create(t.admin, { title: "Phish", typeValue: "phishing", severity: 1 })).severity).toBe(1);
      expect(await refusal(t.kit.cases.create(t.admin, { title: "Worm", typeValue: "malware" }))).toEqual({ code: "severity_required", paths: ["severity"] });
      expect(await refusal(t.kit.cases.create(t.admin, { title: "No type" }))).toEqual({ code: "severity_required", paths: ["severity"] });
      expect((await refusal(t.kit.cases.create(t.admin, { title: "Unknown", typeValue: "nope" }))).code).toBe("unknown_case_type");
      expect((await refusal(t.kit.caseTypes.create(t.admin, { key: "bad", label: "Bad", defaultSeverity: 5 }))).code).toBe("validation_failed");
      expect((await t.kit.caseTypes.update(t.admin, type.id, { defaultSeverity: null })).defaultSeverity).toBeNull();
      expect((await refusal(t.kit.cases.create(t.admin, { title: "Phish", typeValue: "phishing" }))).paths).toEqual(["severity"]);
      // Nothing was written by the refusals.
      expect((await t.kit.cases.list(t.admin, {})).data).toHaveLength(2);
    });
  });

  describe("configuration as code", () => {
    it("exports named case lifecycles and types' lifecycle and defaultSeverity; a fresh organization imports them as they are", async () => {
      await t.kit.lifecycles.publish(t.admin, "case", quick, "quick");
      await t.kit.caseTypes.create(t.admin, { key: "phishing", label: "Phishing", lifecycle: "quick", defaultSeverity: 2 });
      const exported = await t.kit.configuration.export(t.admin);
      expect(exported.caseLifecycles).toEqual([{ key: "quick", ...quick }]);
      expect(exported.caseTypes).toEqual([{ key: "phishing", label: "Phishing", defaultSeverity: 2, customFields: [], lifecycle: "quick", archived: false }]);
      expect(await t.kit.configuration.import(t.admin, exported)).toMatchObject({ caseLifecycles: { published: [], unchanged: ["quick"] }, caseTypes: { unchanged: ["phishing"] } });

      const { addOrganization } = await import("../helpers/kit.js");
      const other = await addOrganization(t.kit, "Other SOC");
      const changes = await t.kit.configuration.import(other.admin, JSON.parse(JSON.stringify(exported)));
      expect(changes.caseLifecycles).toEqual({ published: ["quick"], unchanged: [] });
      expect(await t.kit.configuration.export(other.admin)).toEqual(exported);
      expect(await t.kit.cases.create(other.admin, { title: "Phish", typeValue: "phishing" })).toMatchObject({ statusValue: "reported", severity: 2 });
    });

    it("a type naming no lifecycle, a named lifecycle called default, or a switch its cases cannot make are listed by path; nothing changes", async () => {
      await t.kit.lifecycles.publish(t.admin, "case", quick, "quick");
      await t.kit.caseTypes.create(t.admin, { key: "phishing", label: "Phishing", lifecycle: "quick" });
      await phishingCase({ statusValue: "analysing" });
      const doc = await t.kit.configuration.export(t.admin);
      const before = JSON.stringify(doc);
      doc.caseTypes = [{ ...doc.caseTypes[0]!, lifecycle: "default" }, { key: "malware", label: "Malware", customFields: [], lifecycle: "slow", archived: false }];
      doc.caseLifecycles.push({ key: "fast", statuses: quickStatuses, transitions: [] });
      const refused = await refusal(t.kit.configuration.import(t.admin, doc));
      expect(refused).toEqual({ code: "invalid_configuration", paths: ["caseTypes.0.lifecycle", "caseTypes.1.lifecycle"] });
      expect(JSON.stringify(await t.kit.configuration.export(t.admin))).toBe(before);
      expect((await refusal(t.kit.configuration.import(t.admin, { ...doc, caseLifecycles: [{ key: "default", ...quick }] }))).paths).toEqual(["caseLifecycles.0.key"]);

      // A type may name a lifecycle the same document brings, and a named lifecycle's mapping moves that type's cases.
      const ok = await t.kit.configuration.export(t.admin);
      ok.caseLifecycles.push({ key: "slow", statuses: quickStatuses, transitions: quickTransitions });
      ok.caseTypes.push({ key: "malware", label: "Malware", customFields: [], lifecycle: "slow", archived: false });
      expect(await t.kit.configuration.import(t.admin, ok)).toMatchObject({ caseLifecycles: { published: ["slow"], unchanged: ["quick"] }, caseTypes: { created: ["malware"] } });
      expect((await t.kit.cases.create(t.admin, { title: "Worm", severity: 1, typeValue: "malware" })).statusValue).toBe("reported");
    });
  });
});
