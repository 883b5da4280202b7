import { beforeEach, describe, expect, it } from "vitest";
import type { LifecycleStatus, LifecycleTransition, Principal, StatusChange } from "../../core/index.js";
import { defaultLifecycles } from "../../core/index.js";
import type { TestKit } from "../helpers/kit.js";
import { addOrganization, addUser, makeTestKit, principalFor } from "../helpers/kit.js";
import { refusal } from "../helpers/refusal.js";

/** The example: triage → investigating → waiting_customer (on hold) → contained → closed. */
const socStatuses: LifecycleStatus[] = [
  { key: "triage", label: "Triage", category: "new", final: false, color: "#999999" },
  { key: "investigating", label: "Investigating", category: "in_progress", final: false, color: null },
  { key: "waiting_customer", label: "Waiting for the customer", category: "on_hold", final: false, color: null },
  { key: "contained", label: "Contained", category: "resolved", final: false, color: null },
  { key: "closed", label: "Closed", category: "closed", final: true, color: null },
];
const socTransitions: LifecycleTransition[] = [
  { from: ["triage"], to: "investigating" },
  { from: ["investigating"], to: "waiting_customer", requires: ["reason"] },
  { from: ["waiting_customer"], to: "investigating" },
  { from: ["investigating", "waiting_customer"], to: "contained", requires: ["field:assigneeId", "field:customFields.root_cause"] },
  { from: ["contained"], to: "closed", requires: ["reason", "no_open_mandatory_tasks"] },
  { from: ["closed"], to: "investigating", roles: ["admin", "assignee"] },
];
const socLifecycle = { statuses: socStatuses, transitions: socTransitions };

describe("lifecycles", () => {
  let t: TestKit;
  let analyst: Principal;

  const history = async (entity: "case" | "alert" | "task", id: string): Promise<StatusChange[]> => (await t.kit.transitions.history(t.admin, entity, id, {})).data;
  const moves = async (entity: "case" | "alert" | "task", id: string) => (await history(entity, id)).map((c) => [c.from, c.to]);
  const newCase = async (fields: Record<string, unknown> = {}) => t.kit.cases.create(t.admin, { title: "Phishing wave", severity: 3, ...fields });

  beforeEach(async () => {
    t = await makeTestKit();
    const user = await addUser(t.kit, t.organizationId, { role: "analyst" });
    analyst = principalFor(t.admin, { userId: user.id, role: "analyst", keyId: null });
  });

  describe("the built-in default", () => {
    it("every organization has today's lifecycles as version 0, with no stored version", async () => {
      for (const entity of ["case", "alert", "task"] as const) {
        const lifecycle = await t.kit.lifecycles.get(t.admin, entity);
        expect(lifecycle).toEqual({ id: null, ...defaultLifecycles[entity], mapping: {}, createdAt: null, createdBy: null });
        expect(await t.kit.lifecycles.versions(t.admin, entity, {})).toEqual({ data: [], nextCursor: null });
      }
    });

    it("a case's transitions list the default's moves with their gates; reopening is the admins' and the assignee's", async () => {
      const record = await newCase();
      const options = await t.kit.transitions.list(t.admin, "case", record.id);
      expect(options.from).toBe("new");
      expect(options.data.map((o) => [o.to, o.unmet])).toEqual([
        ["in_progress", []],
        ["on_hold", []],
        ["resolved", []],
        ["closed", []],
      ]);
      await t.kit.tasks.create(t.admin, record.id, { title: "Must be done", mandatory: true });
      const closing = (await t.kit.transitions.list(t.admin, "case", record.id)).data.find((o) => o.to === "closed");
      expect(closing?.unmet).toEqual(["no_open_mandatory_tasks"]);
      // The legacy code stays for that one gate, with the list beside it.
      expect(await refusal(t.kit.transitions.perform(t.admin, "case", record.id, { to: "closed" }))).toEqual({ code: "mandatory_tasks_open", paths: [], unmet: ["no_open_mandatory_tasks"] });

      const other = await newCase();
      await t.kit.cases.update(t.admin, other.id, { statusValue: "closed" });
      expect((await t.kit.transitions.list(analyst, "case", other.id)).data).toEqual([]);
      expect((await t.kit.transitions.list(t.admin, "case", other.id)).data.map((o) => o.to)).toEqual(["in_progress"]);
    });

    it("history: one entry per change, oldest first, with categories, actor and reason", async () => {
      const record = await newCase();
      await t.kit.cases.update(t.admin, record.id, { title: "No status change" });
      await t.kit.cases.update(t.admin, record.id, { statusValue: "in_progress" });
      await t.kit.transitions.perform(t.admin, "case", record.id, { to: "on_hold", reason: "Waiting for logs" });
      const entries = await history("case", record.id);
      expect(entries.map((e) => [e.from, e.to, e.fromCategory, e.toCategory, e.reason])).toEqual([
        [null, "new", null, "new", null],
        ["new", "in_progress", "new", "in_progress", null],
        ["in_progress", "on_hold", "in_progress", "on_hold", "Waiting for logs"],
      ]);
      expect(entries.every((e) => e.actorUserId === t.admin.userId && e.recordId === record.id && e.entity === "case")).toBe(true);
      const page = await t.kit.transitions.history(t.admin, "case", record.id, { limit: 2 });
      expect(page.data).toHaveLength(2);
      const rest = await t.kit.transitions.history(t.admin, "case", record.id, { limit: 2, cursor: page.nextCursor });
      expect(rest).toEqual({ data: [entries[2]], nextCursor: null });
    });

    it("history of alerts (ingest, a reopening report, PATCH, promote, merge) and tasks (create, PATCH, bulk)", async () => {
      const alert = await t.kit.alerts.create(t.admin, { title: "Beacon", source: "edr", sourceRef: "r-1", severity: 2 });
      await t.kit.alerts.update(t.admin, alert.id, { statusValue: "closed" });
      await t.kit.alerts.create(t.admin, { title: "Beacon", source: "edr", sourceRef: "r-1", severity: 2 });
      expect(await moves("alert", alert.id)).toEqual([
        [null, "new"],
        ["new", "closed"],
        ["closed", "new"],
      ]);
      const promoted = await t.kit.alerts.promote(t.admin, alert.id, { statusValue: "in_progress" });
      expect(await moves("alert", alert.id)).toEqual([
        [null, "new"],
        ["new", "closed"],
        ["closed", "new"],
        ["new", "imported"],
      ]);
      expect((await history("alert", alert.id)).at(-1)?.reason).toBe(`promoted into case ${promoted.case.id}`);
      expect(await moves("case", promoted.case.id)).toEqual([[null, "in_progress"]]);
      const second = await t.kit.alerts.create(t.admin, { title: "Beacon 2", source: "edr", sourceRef: "r-2", severity: 2 });
      await t.kit.alerts.merge(t.admin, second.id, { caseId: promoted.case.id });
      expect(await moves("alert", second.id)).toEqual([
        [null, "new"],
        ["new", "imported"],
      ]);

      const caseId = (await newCase()).id;
      const tasks = [];
      for (let i = 0; i < 3; i++) tasks.push(await t.kit.tasks.create(t.admin, caseId, { title: `Task ${i}` }));
      await t.kit.tasks.update(t.admin, tasks[0]!.id, { status: "completed" });
      const bulk = await t.kit.tasks.bulkUpdate(t.admin, { ids: tasks.map((task) => task.id), fields: { status: "in_progress" } });
      expect(bulk).toMatchObject({ updated: 3, skipped: [] });
      expect(await moves("task", tasks[0]!.id)).toEqual([
        [null, "waiting"],
        ["waiting", "completed"],
        ["completed", "in_progress"],
      ]);
      expect(await moves("task", tasks[1]!.id)).toEqual([
        [null, "waiting"],
        ["waiting", "in_progress"],
      ]);
      // A bulk page's moves the lifecycle refuses are skipped, and write no history.
      const again = await t.kit.tasks.bulkUpdate(t.admin, { ids: [tasks[1]!.id], fields: { status: "cancelled" } });
      expect(again).toMatchObject({ updated: 1 });
      const refused = await t.kit.tasks.bulkUpdate(t.admin, { ids: [tasks[1]!.id], fields: { status: "in_progress" } });
      expect(refused.skipped).toEqual([{ id: tasks[1]!.id, code: "invalid_transition" }]);
      expect((await moves("task", tasks[1]!.id)).at(-1)).toEqual(["in_progress", "cancelled"]);
    });
  });

  describe("an organization's own lifecycle", () => {
    // The scenario's field gate names a defined custom field (lifecycle publication checks it).
    beforeEach(async () => {
      await t.kit.customFields.create(t.admin, { key: "root_cause", label: "Root cause", scopes: ["case"], type: "text" });
    });

    it("publishes a version: records of a dropped status move as the mapping says, with history; audited and announced", async () => {
      const fresh = await newCase();
      const working = await newCase({ statusValue: "in_progress" });
      const refused = await refusal(t.kit.lifecycles.publish(t.admin, "case", socLifecycle));
      expect(refused.code).toBe("invalid_lifecycle");
      // Statuses records are in need a mapping; on_hold, resolved hold no case and need none.
      expect(refused.paths).toEqual(["mapping.new", "mapping.in_progress"]);

      const published = await t.kit.lifecycles.publish(t.admin, "case", { ...socLifecycle, mapping: { new: "triage", in_progress: "investigating" } });
      expect(published).toMatchObject({ entity: "case", version: 1, createdBy: t.admin.userId, mapping: { new: "triage", in_progress: "investigating" } });
      expect(await t.kit.lifecycles.get(t.admin, "case")).toEqual(published);
      expect((await t.kit.cases.get(t.admin, fresh.id)).statusValue).toBe("triage");
      expect((await t.kit.cases.get(t.admin, working.id)).statusValue).toBe("investigating");
      expect((await history("case", fresh.id)).at(-1)).toMatchObject({ from: "new", to: "triage", toCategory: "new", reason: "lifecycle remap" });

      const events = await t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 100 }));
      expect(events.filter((e) => e.name === "lifecycle.published").map((e) => e.resourceId)).toEqual([published.id]);
      const audit = await t.kit.storage.read((tx) => tx.audit.list(t.organizationId, { limit: 100 }));
      expect(audit.some((a) => a.action === "lifecycle.published")).toBe(true);

      // Another organization keeps the built-in lifecycle.
      const other = await addOrganization(t.kit, "Other SOC");
      expect((await t.kit.lifecycles.get(other.admin, "case")).version).toBe(0);
      expect((await t.kit.cases.create(other.admin, { title: "Theirs", severity: 1 })).statusValue).toBe("new");

      const v2 = await t.kit.lifecycles.publish(t.admin, "case", socLifecycle);
      expect((await t.kit.lifecycles.versions(t.admin, "case", {})).data.map((v) => v.version)).toEqual([v2.version, 1]);
    });

    it("the issue's scenario: transitions listed with unmet gates, blocked until they hold, history of every change", async () => {
      await t.kit.lifecycles.publish(t.admin, "case", socLifecycle);
      const record = await newCase();
      expect(record.statusValue).toBe("triage");
      await t.kit.transitions.perform(t.admin, "case", record.id, { to: "investigating" });

      const options = await t.kit.transitions.list(t.admin, "case", record.id);
      expect(options.data.map((o) => ({ to: o.to, category: o.category, unmet: o.unmet }))).toEqual([
        { to: "waiting_customer", category: "on_hold", unmet: ["reason"] },
        { to: "contained", category: "resolved", unmet: ["field:assigneeId", "field:customFields.root_cause"] },
      ]);
      expect(await refusal(t.kit.transitions.perform(t.admin, "case", record.id, { to: "contained" }))).toEqual({
        code: "transition_blocked",
        paths: [],
        unmet: ["field:assigneeId", "field:customFields.root_cause"],
      });
      // PATCH obeys the same rules.
      expect((await refusal(t.kit.cases.update(t.admin, record.id, { statusValue: "waiting_customer" }))).unmet).toEqual(["reason"]);
      expect((await refusal(t.kit.cases.update(t.admin, record.id, { statusValue: "closed" }))).code).toBe("invalid_transition");
      expect(await refusal(t.kit.cases.update(t.admin, record.id, { statusValue: "resolved" }))).toEqual({ code: "unknown_status", paths: ["statusValue"] });

      await t.kit.transitions.perform(t.admin, "case", record.id, { to: "waiting_customer", reason: "Asked the customer for logs" });
      await t.kit.transitions.perform(t.admin, "case", record.id, { to: "investigating" });
      const contained = await t.kit.transitions.perform(t.admin, "case", record.id, {
        to: "contained",
        fields: { assigneeId: t.admin.userId, customFields: { root_cause: "Phished credentials" } },
      });
      expect(contained).toMatchObject({ statusValue: "contained", assigneeId: t.admin.userId, closedAt: null });

      await t.kit.tasks.create(t.admin, record.id, { title: "Reset passwords", mandatory: true });
      const closing = (await t.kit.transitions.list(t.admin, "case", record.id)).data;
      expect(closing).toEqual([{ to: "closed", label: "Closed", category: "closed", final: true, unmet: ["reason", "no_open_mandatory_tasks"] }]);
      const task = (await t.kit.tasks.listOf(t.admin, record.id, {})).data[0]!;
      await t.kit.tasks.update(t.admin, task.id, { status: "completed" });
      const closed = await t.kit.transitions.perform(t.admin, "case", record.id, { to: "closed", reason: "Contained and cleaned" });
      expect(closed).toMatchObject({ statusValue: "closed", closedAt: expect.any(String) });

      // Closed means closed: a final status of the organization's own lifecycle freezes the case.
      expect((await refusal(t.kit.cases.update(t.admin, record.id, { title: "Edited" }))).code).toBe("record_closed");
      expect((await refusal(t.kit.tasks.create(t.admin, record.id, { title: "Late" }))).code).toBe("record_closed");
      expect((await refusal(t.kit.transitions.perform(analyst, "case", record.id, { to: "investigating" }))).code).toBe("invalid_transition");

      expect((await history("case", record.id)).map((e) => [e.from, e.to, e.toCategory, e.reason])).toEqual([
        [null, "triage", "new", null],
        ["triage", "investigating", "in_progress", null],
        ["investigating", "waiting_customer", "on_hold", "Asked the customer for logs"],
        ["waiting_customer", "investigating", "in_progress", null],
        ["investigating", "contained", "resolved", null],
        ["contained", "closed", "closed", "Contained and cleaned"],
      ]);
    });

    it("alerts created and promoted follow the organization's lifecycles; a promoted case starts in its first new status", async () => {
      await t.kit.lifecycles.publish(t.admin, "case", socLifecycle);
      const alertLifecycle = {
        statuses: [
          { key: "open", label: "Open", category: "new", final: false },
          { key: "dismissed", label: "Dismissed", category: "closed", final: true },
          { key: "imported", label: "Imported", category: "closed", final: true },
        ],
        transitions: [
          { from: ["open"], to: "dismissed", requires: ["reason"] },
          { from: ["open"], to: "imported" },
          { from: ["dismissed"], to: "open", roles: ["admin"] },
        ],
      };
      await t.kit.lifecycles.publish(t.admin, "alert", alertLifecycle);
      const alert = await t.kit.alerts.create(t.admin, { title: "Beacon", source: "edr", sourceRef: "x-1", severity: 2 });
      expect(alert.statusValue).toBe("open");
      const promoted = await t.kit.alerts.promote(t.admin, alert.id, {});
      expect(promoted.case.statusValue).toBe("triage");
      expect(promoted.alert.statusValue).toBe("imported");
      expect(await moves("case", promoted.case.id)).toEqual([[null, "triage"]]);
      // Unknown statuses are refused by name, in filters too.
      expect(await refusal(t.kit.alerts.list(t.admin, { statusValue: "new" }))).toEqual({ code: "unknown_status", paths: ["statusValue"] });
      expect((await t.kit.alerts.list(t.admin, { statusValue: "imported" })).data.map((a) => a.id)).toEqual([alert.id]);
    });

    it("refuses a lifecycle that breaks a rule, naming each broken rule; changes nothing", async () => {
      const bad = {
        statuses: [
          { key: "a", label: "A", category: "in_progress", final: false },
          { key: "a", label: "A again", category: "closed", final: true },
        ],
        transitions: [
          { from: ["a", "b"], to: "c", requires: ["nonsense"] },
          { from: ["a"], to: "a", requires: ["field:x..y"] },
        ],
      };
      const refused = await refusal(t.kit.lifecycles.publish(t.admin, "case", bad));
      expect(refused.code).toBe("invalid_lifecycle");
      expect(refused.paths).toEqual(["statuses.1.key", "statuses", "transitions.0.from.1", "transitions.0.to", "transitions.0.requires.0", "transitions.1.requires.0"]);
      // The shape itself is the schema's: validation_failed.
      expect(await refusal(t.kit.lifecycles.publish(t.admin, "case", { ...bad, statuses: [{ key: "a", label: "A", category: "sideways", final: false }] }))).toEqual({ code: "validation_failed", paths: ["statuses.0.category"] });
      const noImported = { statuses: [{ key: "open", label: "Open", category: "new", final: false }], transitions: [] };
      expect((await refusal(t.kit.lifecycles.publish(t.admin, "alert", noImported))).paths).toEqual(["statuses"]);
      const taskGate = { statuses: defaultLifecycles.task.statuses, transitions: [{ from: ["waiting"], to: "completed", requires: ["no_open_mandatory_tasks"] }] };
      expect((await refusal(t.kit.lifecycles.publish(t.admin, "task", taskGate))).paths).toEqual(["transitions.0.requires.0"]);
      // A field:customFields.<key> gate names a field defined for the entity: root_cause is a case field, rootCause no key at all.
      const gated = (key: string) => ({ ...socLifecycle, transitions: [{ from: ["triage"], to: "investigating", requires: [`field:customFields.${key}`] }] });
      expect(await refusal(t.kit.lifecycles.publish(t.admin, "case", gated("rootCause")))).toEqual({ code: "invalid_lifecycle", paths: ["transitions.0.requires.0"] });
      expect(await refusal(t.kit.lifecycles.publish(t.admin, "task", { statuses: socStatuses, transitions: gated("root_cause").transitions }))).toEqual({ code: "invalid_lifecycle", paths: ["transitions.0.requires.0"] });
      const mapsKept = { ...defaultLifecycles.case, mapping: { new: "closed" } };
      expect((await refusal(t.kit.lifecycles.publish(t.admin, "case", { statuses: mapsKept.statuses, transitions: mapsKept.transitions, mapping: mapsKept.mapping }))).paths).toEqual(["mapping.new"]);
      expect(await refusal(t.kit.lifecycles.publish(t.admin, "project", socLifecycle))).toMatchObject({ code: "validation_failed" });
      const writer = principalFor(t.admin, { scopes: new Set(["cases:read", "cases:write"]) });
      expect((await refusal(t.kit.lifecycles.publish(writer, "case", socLifecycle))).code).toBe("missing_scope");
      expect((await t.kit.lifecycles.get(t.admin, "case")).version).toBe(0);
    });

    it("a task lifecycle's final statuses decide which mandatory tasks hold a case open", async () => {
      await t.kit.lifecycles.publish(t.admin, "task", {
        statuses: [
          { key: "todo", label: "To do", category: "new", final: false },
          { key: "blocked", label: "Blocked", category: "on_hold", final: false },
          { key: "done", label: "Done", category: "resolved", final: true },
        ],
        transitions: [
          { from: ["todo"], to: "blocked" },
          { from: ["todo", "blocked"], to: "done", requires: ["reason"] },
        ],
        mapping: {},
      });
      const record = await newCase();
      const task = await t.kit.tasks.create(t.admin, record.id, { title: "Mandatory", mandatory: true });
      expect(task.status).toBe("todo");
      await t.kit.tasks.update(t.admin, task.id, { status: "blocked" });
      expect((await refusal(t.kit.cases.update(t.admin, record.id, { statusValue: "closed" }))).code).toBe("mandatory_tasks_open");
      expect(await refusal(t.kit.transitions.perform(t.admin, "task", task.id, { to: "done" }))).toMatchObject({ code: "transition_blocked", unmet: ["reason"] });
      const bulk = await t.kit.tasks.bulkUpdate(t.admin, { ids: [task.id], fields: { status: "done" } });
      expect(bulk.skipped).toEqual([{ id: task.id, code: "transition_blocked" }]);
      await t.kit.transitions.perform(t.admin, "task", task.id, { to: "done", reason: "Finished" });
      expect((await t.kit.cases.update(t.admin, record.id, { statusValue: "closed" })).statusValue).toBe("closed");
    });
  });

  describe("reading transitions and history is reading the record", () => {
    it("another organization's record is not_found; above the caller's clearance is tlp_restricted", async () => {
      const red = await newCase({ tlp: 4 });
      const other = await addOrganization(t.kit, "Other SOC");
      expect((await refusal(t.kit.transitions.list(other.admin, "case", red.id))).code).toBe("not_found");
      expect((await refusal(t.kit.transitions.history(other.admin, "case", red.id, {}))).code).toBe("not_found");
      const low = principalFor(t.admin, { tlpClearance: 1 });
      expect((await refusal(t.kit.transitions.list(low, "case", red.id))).code).toBe("tlp_restricted");
      expect((await refusal(t.kit.transitions.history(low, "case", red.id, {}))).code).toBe("tlp_restricted");
      const reader = principalFor(t.admin, { scopes: new Set(["alerts:read"]) });
      expect((await refusal(t.kit.transitions.history(reader, "case", red.id, {}))).code).toBe("missing_scope");
    });
  });
});
