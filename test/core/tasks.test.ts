import { beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode, Principal, Scope, Task, TaskStatus } from "../../core/index.js";
import { canTransitionTask, taskStatuses } from "../../core/index.js";
import type { TestKit } from "../helpers/kit.js";
import { addOrganization, addUser, makeTestKit, principalFor } from "../helpers/kit.js";

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; paths: string[] }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; errors?: { path: string }[] };
    return { code: e.code, paths: (e.errors ?? []).map((x) => x.path) };
  }
  throw new Error("expected a failure");
}

const ids = (page: { data: { id: string }[] }) => page.data.map((t) => t.id);

describe("tasks", () => {
  let t: TestKit;
  /** An AMBER case of the first organization. */
  let caseId: string;

  const events = () => t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 100 }));
  const auditLog = () => t.kit.storage.read((tx) => tx.audit.list(t.organizationId, { limit: 100 }));
  const tlpLog = () => t.kit.storage.read((tx) => tx.tlpAudit.list(t.organizationId, { resourceType: ["task"] }, { limit: 500 }));
  const stored = (id: string) => t.kit.storage.read((tx) => tx.tasks.findById(t.organizationId, id));
  const newCase = async (tlp = 2) => (await t.kit.cases.create(t.admin, { title: "Phishing wave", severity: 3, tlp })).id;

  beforeEach(async () => {
    t = await makeTestKit();
    caseId = await newCase(2);
  });

  describe("create", () => {
    it("defaults: waiting, not mandatory, the case's TLP, order after the case's last task", async () => {
      const first = await t.kit.tasks.create(t.admin, caseId, { title: "  Collect headers " });
      expect(first).toEqual({
        id: expect.stringMatching(/^task_[0-9a-z]{26}$/),
        organizationId: t.organizationId,
        caseId,
        title: "Collect headers",
        description: null,
        status: "waiting",
        assigneeId: null,
        dueDate: null,
        mandatory: false,
        tlp: 2,
        order: 1,
        customFields: {},
        createdAt: "2026-03-01T12:00:00.000Z",
        updatedAt: "2026-03-01T12:00:00.000Z",
        createdBy: t.admin.userId,
        deletedAt: null,
        deletedBy: null,
      });
      expect(await stored(first.id)).toEqual(first);
      expect((await t.kit.tasks.create(t.admin, caseId, { title: "Second" })).order).toBe(2);
      expect((await t.kit.tasks.create(t.admin, caseId, { title: "Placed", order: 40 })).order).toBe(40);
      expect((await t.kit.tasks.create(t.admin, caseId, { title: "After the placed one" })).order).toBe(41);
      // Another case counts from its own tasks.
      expect((await t.kit.tasks.create(t.admin, await newCase(), { title: "Elsewhere" })).order).toBe(1);
    });

    it("takes every spec §2.3 field", async () => {
      const assignee = await addUser(t.kit, t.organizationId);
      const created = await t.kit.tasks.create(t.admin, caseId, {
        title: "Reset passwords",
        description: "All finance accounts",
        status: "in_progress",
        assigneeId: assignee.id,
        dueDate: "2026-03-02T09:00:00+01:00",
        mandatory: true,
        tlp: 3,
      });
      expect(created).toMatchObject({ status: "in_progress", assigneeId: assignee.id, dueDate: "2026-03-02T08:00:00.000Z", mandatory: true, tlp: 3, description: "All finance accounts" });
    });

    it("writes one audit entry and one task.created event in the same unit of work", async () => {
      const created = await t.kit.tasks.create(t.admin, caseId, { title: "Collect headers" });
      expect((await auditLog()).filter((a) => a.target.type === "task")).toEqual([
        expect.objectContaining({ action: "task.created", target: { type: "task", id: created.id, caseId }, actor: { type: "apiKey", id: t.admin.keyId, onBehalfOf: t.admin.userId }, bulkRequestId: null }),
      ]);
      expect((await events()).filter((e) => e.resourceType === "task")).toEqual([
        expect.objectContaining({ name: "task.created", resourceId: created.id, tlp: 2, payload: expect.objectContaining({ id: created.id, title: "Collect headers" }) }),
      ]);
    });

    it("refuses unknown fields, a completed start, a bad assignee, and writes nothing", async () => {
      const disabled = await addUser(t.kit, t.organizationId, { status: "disabled" });
      const other = await addOrganization(t.kit, "Other SOC");
      const cases: [unknown, string][] = [
        [{}, "title"],
        [{ title: "" }, "title"],
        [{ title: "x", caseId }, "caseId"],
        [{ title: "x", organizationId: other.organizationId }, "organizationId"],
        [{ title: "x", tlp: 5 }, "tlp"],
        [{ title: "x", order: -1 }, "order"],
        [{ title: "x", dueDate: "tomorrow" }, "dueDate"],
      ];
      for (const [body, path] of cases) {
        expect(await failure(t.kit.tasks.create(t.admin, caseId, body)), JSON.stringify(body)).toMatchObject({ code: "validation_failed", paths: [path] });
      }
      // A status the lifecycle does not start a task in, and one it does not have (core/lifecycles).
      expect(await failure(t.kit.tasks.create(t.admin, caseId, { title: "x", status: "completed" }))).toMatchObject({ code: "invalid_transition" });
      expect(await failure(t.kit.tasks.create(t.admin, caseId, { title: "x", status: "done" }))).toMatchObject({ code: "unknown_status", paths: ["status"] });
      // Well-formed ids of users who cannot be assigned: the records' state, not the body's shape.
      for (const assigneeId of [disabled.id, other.admin.userId]) {
        expect(await failure(t.kit.tasks.create(t.admin, caseId, { title: "x", assigneeId }))).toMatchObject({ code: "unknown_reference", paths: ["assigneeId"] });
      }
      expect((await t.kit.tasks.list(t.admin, {})).data).toEqual([]);
      expect((await events()).filter((e) => e.resourceType === "task")).toEqual([]);
    });

    it("nobody creates a task above their own clearance, nor on a case above it", async () => {
      const amber = principalFor(t.admin, { tlpClearance: 2 });
      expect((await failure(t.kit.tasks.create(amber, caseId, { title: "x", tlp: 3 }))).code).toBe("tlp_restricted");
      const red = await newCase(4);
      expect((await failure(t.kit.tasks.create(amber, red, { title: "x" }))).code).toBe("tlp_restricted");
      expect((await t.kit.tasks.create(amber, caseId, { title: "at my level" })).tlp).toBe(2);
      expect((await t.kit.tasks.list(t.admin, {})).data).toHaveLength(1);
    });

    it("another organization's case is not_found, exactly as one that never existed", async () => {
      const other = await addOrganization(t.kit, "Other SOC");
      const foreign = await failure(t.kit.tasks.create(other.admin, caseId, { title: "x" }));
      expect(foreign).toEqual({ code: "not_found", paths: [] });
      expect(await failure(t.kit.tasks.create(other.admin, "case_01kaaaaaaaaaaaaaaaaaaaaaaa", { title: "x" }))).toEqual(foreign);
    });

    it("needs tasks:write; reading needs tasks:read (the case scopes are not enough)", async () => {
      const caseOnly = principalFor(t.admin, { scopes: new Set<Scope>(["cases:read", "cases:write"]) });
      expect((await failure(t.kit.tasks.create(caseOnly, caseId, { title: "x" }))).code).toBe("missing_scope");
      expect((await failure(t.kit.tasks.list(caseOnly, {}))).code).toBe("missing_scope");
      expect((await failure(t.kit.tasks.listOf(caseOnly, caseId, {}))).code).toBe("missing_scope");
      const readOnly = principalFor(t.admin, { scopes: new Set<Scope>(["tasks:read"]) });
      const task = await t.kit.tasks.create(t.admin, caseId, { title: "x" });
      expect((await t.kit.tasks.get(readOnly, task.id)).id).toBe(task.id);
      expect((await failure(t.kit.tasks.update(readOnly, task.id, { title: "y" }))).code).toBe("missing_scope");
      expect((await failure(t.kit.tasks.delete(readOnly, task.id))).code).toBe("missing_scope");
      expect((await failure(t.kit.tasks.bulkUpdate(readOnly, { ids: [task.id], fields: { title: "y" } }))).code).toBe("missing_scope");
    });
  });

  describe("lifecycle", () => {
    const allowed: [TaskStatus, TaskStatus][] = [
      ["waiting", "in_progress"],
      ["waiting", "completed"],
      ["waiting", "cancelled"],
      ["in_progress", "waiting"],
      ["in_progress", "completed"],
      ["in_progress", "cancelled"],
      ["completed", "in_progress"],
      ["cancelled", "waiting"],
    ];

    it("the transition table: exactly the listed moves, plus staying put", () => {
      for (const from of taskStatuses) {
        for (const to of taskStatuses) {
          const listed = from === to || allowed.some(([a, b]) => a === from && b === to);
          expect(canTransitionTask(from, to), `${from} → ${to}`).toBe(listed);
        }
      }
    });

    /** A task brought to `status` through allowed moves. */
    async function taskIn(status: TaskStatus): Promise<Task> {
      const task = await t.kit.tasks.create(t.admin, caseId, { title: `To ${status}` });
      if (status === "waiting") return task;
      return t.kit.tasks.update(t.admin, task.id, { status });
    }

    it.each(allowed)("%s → %s is allowed", async (from, to) => {
      const task = await taskIn(from);
      t.clock.advance(1000);
      const changed = await t.kit.tasks.update(t.admin, task.id, { status: to });
      expect(changed).toMatchObject({ status: to, updatedAt: t.clock.now().toISOString(), createdAt: task.createdAt });
    });

    it.each([
      ["completed", "cancelled"],
      ["completed", "waiting"],
      ["cancelled", "in_progress"],
      ["cancelled", "completed"],
    ] as [TaskStatus, TaskStatus][])("%s → %s is 409 invalid_transition and changes nothing", async (from, to) => {
      const task = await taskIn(from);
      expect((await failure(t.kit.tasks.update(t.admin, task.id, { status: to, title: "renamed" }))).code).toBe("invalid_transition");
      expect(await stored(task.id)).toEqual(task);
    });

    it("update changes only what is sent; null clears; the audit entry records the change", async () => {
      const task = await t.kit.tasks.create(t.admin, caseId, { title: "Collect", description: "headers", dueDate: "2026-03-05T00:00:00Z" });
      t.clock.advance(60_000);
      const changed = await t.kit.tasks.update(t.admin, task.id, { description: null, dueDate: null, mandatory: true, order: 7 });
      expect(changed).toEqual({ ...task, description: null, dueDate: null, mandatory: true, order: 7, updatedAt: "2026-03-01T12:01:00.000Z" });
      expect(await stored(task.id)).toEqual(changed);
      const entry = (await auditLog()).find((a) => a.action === "task.updated");
      expect(entry?.changes).toEqual(
        expect.arrayContaining([
          { path: "description", before: "headers", after: null },
          { path: "mandatory", before: false, after: true },
        ]),
      );
      expect((await events()).find((e) => e.name === "task.updated")).toMatchObject({ resourceId: task.id, bulkRequestId: null });
      expect((await failure(t.kit.tasks.update(t.admin, task.id, {}))).code).toBe("validation_failed");
      expect((await failure(t.kit.tasks.update(t.admin, task.id, { caseId }))).code).toBe("validation_failed");
    });
  });

  describe("a mandatory task keeps its case from closing", () => {
    it("closing with an open mandatory task is 409 mandatory_tasks_open; done or cancelled, the case closes", async () => {
      const mandatory = await t.kit.tasks.create(t.admin, caseId, { title: "Notify DPO", mandatory: true });
      const cancelledToo = await t.kit.tasks.create(t.admin, caseId, { title: "Legal hold", mandatory: true, status: "in_progress" });
      await t.kit.tasks.create(t.admin, caseId, { title: "Optional", status: "in_progress" });

      const refused = await failure(t.kit.cases.update(t.admin, caseId, { statusValue: "closed" }));
      expect(refused.code).toBe("mandatory_tasks_open");
      expect((await t.kit.cases.get(t.admin, caseId)).statusValue).toBe("new");

      await t.kit.tasks.update(t.admin, mandatory.id, { status: "completed" });
      expect((await failure(t.kit.cases.update(t.admin, caseId, { statusValue: "closed" }))).code).toBe("mandatory_tasks_open");
      await t.kit.tasks.update(t.admin, cancelledToo.id, { status: "cancelled" });
      const closed = await t.kit.cases.update(t.admin, caseId, { statusValue: "closed" });
      expect(closed).toMatchObject({ statusValue: "closed", closedAt: expect.any(String) });
    });

    it("other statuses of the case stay free, and a soft-deleted mandatory task no longer counts", async () => {
      const task = await t.kit.tasks.create(t.admin, caseId, { title: "Notify DPO", mandatory: true });
      expect((await t.kit.cases.update(t.admin, caseId, { statusValue: "resolved" })).statusValue).toBe("resolved");
      expect((await failure(t.kit.cases.update(t.admin, caseId, { statusValue: "closed" }))).code).toBe("mandatory_tasks_open");
      await t.kit.tasks.delete(t.admin, task.id);
      expect((await t.kit.cases.update(t.admin, caseId, { statusValue: "closed" })).statusValue).toBe("closed");
    });

    it("another case's open mandatory task does not count", async () => {
      await t.kit.tasks.create(t.admin, await newCase(), { title: "Elsewhere", mandatory: true });
      expect((await t.kit.cases.update(t.admin, caseId, { statusValue: "closed" })).statusValue).toBe("closed");
    });
  });

  describe("TLP", () => {
    let green: Principal;
    beforeEach(() => {
      green = principalFor(t.admin, { tlpClearance: 1 });
    });

    it("a task above the caller's clearance, or on a case above it, is 403 on every route and left out of lists", async () => {
      const greenCase = await newCase(1);
      const visible = await t.kit.tasks.create(t.admin, greenCase, { title: "Visible" });
      const redTask = await t.kit.tasks.create(t.admin, greenCase, { title: "Red task", tlp: 4 });
      const onAmberCase = await t.kit.tasks.create(t.admin, caseId, { title: "On an AMBER case", tlp: 0 });
      for (const hidden of [redTask, onAmberCase]) {
        expect((await failure(t.kit.tasks.get(green, hidden.id))).code).toBe("tlp_restricted");
        expect((await failure(t.kit.tasks.update(green, hidden.id, { title: "x" }))).code).toBe("tlp_restricted");
        expect((await failure(t.kit.tasks.delete(green, hidden.id))).code).toBe("tlp_restricted");
        expect(await stored(hidden.id)).toEqual(hidden);
      }
      expect(ids(await t.kit.tasks.list(green, {}))).toEqual([visible.id]);
      expect(ids(await t.kit.tasks.listOf(green, greenCase, {}))).toEqual([visible.id]);
      expect((await failure(t.kit.tasks.listOf(green, caseId, {}))).code).toBe("tlp_restricted");
      expect(ids(await t.kit.tasks.list(t.admin, {}))).toEqual([onAmberCase.id, redTask.id, visible.id]);
    });

    it("raising a task above the caller's clearance is refused; a change of marking is audited as change", async () => {
      const task = await t.kit.tasks.create(t.admin, await newCase(1), { title: "x" });
      expect((await failure(t.kit.tasks.update(green, task.id, { tlp: 2 }))).code).toBe("tlp_restricted");
      await t.kit.tasks.update(t.admin, task.id, { tlp: 3 });
      const entries = await tlpLog();
      expect(entries.filter((e) => e.outcome === "denied")).toEqual([expect.objectContaining({ resourceId: task.id, action: "change", actorUserId: t.admin.userId })]);
      expect(entries.find((e) => e.outcome === "allowed" && e.action === "change")).toMatchObject({ resourceId: task.id, tlpBefore: 1, tlpAfter: 3 });
    });
  });

  describe("soft delete", () => {
    it("keeps the record with deletedAt/deletedBy, hides it from get, update, delete and every list, and is evented", async () => {
      const kept = await t.kit.tasks.create(t.admin, caseId, { title: "Kept" });
      const task = await t.kit.tasks.create(t.admin, caseId, { title: "Gone" });
      t.clock.advance(1000);
      const deleted = await t.kit.tasks.delete(t.admin, task.id);
      expect(deleted).toEqual({ ...task, updatedAt: t.clock.now().toISOString(), deletedAt: t.clock.now().toISOString(), deletedBy: t.admin.userId });
      expect(await stored(task.id)).toBeNull();
      expect((await failure(t.kit.tasks.get(t.admin, task.id))).code).toBe("not_found");
      expect((await failure(t.kit.tasks.update(t.admin, task.id, { title: "x" }))).code).toBe("not_found");
      expect((await failure(t.kit.tasks.delete(t.admin, task.id))).code).toBe("not_found");
      expect(ids(await t.kit.tasks.list(t.admin, {}))).toEqual([kept.id]);
      expect(ids(await t.kit.tasks.listOf(t.admin, caseId, {}))).toEqual([kept.id]);
      expect(ids(await t.kit.tasks.list(t.admin, { status: "waiting", caseId }))).toEqual([kept.id]);
      expect((await events()).find((e) => e.name === "task.deleted")).toMatchObject({ resourceId: task.id, payload: expect.objectContaining({ deletedBy: t.admin.userId }) });
      expect((await auditLog()).find((a) => a.action === "task.deleted")).toMatchObject({ target: { type: "task", id: task.id } });
    });

    it("another organization's task is not_found on get, update and delete, and stays untouched", async () => {
      const task = await t.kit.tasks.create(t.admin, caseId, { title: "Mine" });
      const other = await addOrganization(t.kit, "Other SOC");
      for (const attempt of [t.kit.tasks.get(other.admin, task.id), t.kit.tasks.update(other.admin, task.id, { title: "x" }), t.kit.tasks.delete(other.admin, task.id)]) {
        expect(await failure(attempt)).toEqual({ code: "not_found", paths: [] });
      }
      expect(await stored(task.id)).toEqual(task);
      expect((await t.kit.tasks.list(other.admin, {})).data).toEqual([]);
    });
  });

  describe("comments on a task", () => {
    it("inherit the higher of the task's and its case's marking, and leave with the task", async () => {
      const redCase = await newCase(4);
      const task = await t.kit.tasks.create(t.admin, redCase, { title: "Interview", tlp: 0 });
      const comment = await t.kit.comments.create(t.admin, { kind: "task", id: task.id }, { body: "Scheduled." });
      expect(comment).toMatchObject({ parentType: "task", parentId: task.id, tlp: 4 });
      const amber = principalFor(t.admin, { tlpClearance: 2 });
      expect((await failure(t.kit.comments.get(amber, comment.id))).code).toBe("tlp_restricted");
      expect((await failure(t.kit.comments.listOf(amber, { kind: "task", id: task.id }, {}))).code).toBe("tlp_restricted");
      const caseOnly = principalFor(t.admin, { scopes: new Set<Scope>(["cases:read", "cases:write"]) });
      expect((await failure(t.kit.comments.listOf(caseOnly, { kind: "task", id: task.id }, {}))).code).toBe("missing_scope");
      await t.kit.tasks.delete(t.admin, task.id);
      expect((await failure(t.kit.comments.get(t.admin, comment.id))).code).toBe("not_found");
      expect((await failure(t.kit.comments.create(t.admin, { kind: "task", id: task.id }, { body: "x" }))).code).toBe("not_found");
    });
  });

  describe("lists", () => {
    it("newest first, keyset pages, filters combined with AND, any-of on repetition", async () => {
      const second = await newCase();
      const assignee = await addUser(t.kit, t.organizationId);
      const made: Task[] = [];
      for (let i = 0; i < 9; i++) {
        t.clock.advance(60_000);
        made.push(
          await t.kit.tasks.create(t.admin, i % 2 === 0 ? caseId : second, {
            title: `Task ${i}`,
            status: i % 3 === 0 ? "in_progress" : "waiting",
            mandatory: i % 4 === 0,
            assigneeId: i % 2 === 0 ? assignee.id : undefined,
            dueDate: `2026-03-${String(10 + i).padStart(2, "0")}T00:00:00Z`,
          }),
        );
      }
      const newest = [...made].reverse();
      const pick = (keep: (task: Task, i: number) => boolean) => newest.filter((task) => keep(task, made.indexOf(task))).map((task) => task.id);

      const first = await t.kit.tasks.list(t.admin, { limit: "4" });
      expect(ids(first)).toEqual(pick((_, i) => i >= 5));
      const next = await t.kit.tasks.list(t.admin, { limit: "4", cursor: first.nextCursor! });
      const last = await t.kit.tasks.list(t.admin, { limit: "4", cursor: next.nextCursor! });
      expect([...ids(first), ...ids(next), ...ids(last)]).toEqual(newest.map((task) => task.id));
      expect(last.nextCursor).toBeNull();

      expect(ids(await t.kit.tasks.list(t.admin, { caseId: second }))).toEqual(pick((_, i) => i % 2 === 1));
      expect(ids(await t.kit.tasks.listOf(t.admin, second, { limit: "500" }))).toEqual(pick((_, i) => i % 2 === 1));
      expect(ids(await t.kit.tasks.list(t.admin, { status: "in_progress" }))).toEqual(pick((_, i) => i % 3 === 0));
      expect(ids(await t.kit.tasks.list(t.admin, { status: ["in_progress", "waiting"] }))).toHaveLength(9);
      expect(ids(await t.kit.tasks.list(t.admin, { mandatory: "true" }))).toEqual(pick((_, i) => i % 4 === 0));
      expect(ids(await t.kit.tasks.list(t.admin, { assigneeId: assignee.id, status: "in_progress" }))).toEqual(pick((_, i) => i % 2 === 0 && i % 3 === 0));
      expect(ids(await t.kit.tasks.list(t.admin, { dueAfter: "2026-03-13T00:00:00Z", dueBefore: "2026-03-16T00:00:00Z" }))).toEqual(pick((_, i) => i >= 3 && i < 6));
      expect(ids(await t.kit.tasks.listOf(t.admin, caseId, { mandatory: "false" }))).toEqual(pick((_, i) => i % 2 === 0 && i % 4 !== 0));
    });

    it("refuses a bad limit, a forged cursor and unknown parameters", async () => {
      for (const query of [{ limit: "0" }, { limit: "501" }, { cursor: "forged" }, { order: "asc" }, { mandatory: "yes" }]) {
        expect((await failure(t.kit.tasks.list(t.admin, query))).code, JSON.stringify(query)).toBe("validation_failed");
      }
      // A status the organization's task lifecycle does not have.
      expect(await failure(t.kit.tasks.list(t.admin, { status: "done" }))).toMatchObject({ code: "unknown_status", paths: ["status"] });
      expect((await failure(t.kit.tasks.listOf(t.admin, caseId, { caseId }))).code).toBe("validation_failed");
    });

    it("a case of another organization is not_found on its task list", async () => {
      const other = await addOrganization(t.kit, "Other SOC");
      expect(await failure(t.kit.tasks.listOf(other.admin, caseId, {}))).toEqual({ code: "not_found", paths: [] });
    });
  });
});
