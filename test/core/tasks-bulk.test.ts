/**
 * Bulk task operations (`POST /bulk/tasks`, `DELETE /bulk/tasks`) on the generic bulk mechanism
 * (core/bulk/run.ts): selection by ids or selectAll + filters, skipped records with codes,
 * per-record audit entries and events carrying the bulk request id, and all-or-nothing.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { CaseKit, ErrorCode, Principal, Storage, Task } from "../../core/index.js";
import { createCaseKit, ManualClock, maxBulkIds } from "../../core/index.js";
import type { UnitOfWork } from "../../core/ports/storage.js";
import { addOrganization, addUser, keyHashSecret, principalFor } from "../helpers/kit.js";
import { taskRecord } from "../conformance/task-record.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; paths: string[] }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; errors?: { path: string }[] };
    return { code: e.code, paths: (e.errors ?? []).map((x) => x.path) };
  }
  throw new Error("expected a failure");
}

/**
 * A storage whose page writes (`tasks.updateMany`, `tasks.patchMany`) can be told to throw on the
 * n-th call: a fault in the middle of a bulk operation, after earlier pages were written inside
 * the same transaction.
 */
function faultyStorage(inner: Storage): Storage & { failOnSave(n: number | null): void } {
  let failAt: number | null = null;
  let saves = 0;
  const wrapTx = (tx: UnitOfWork): UnitOfWork =>
    new Proxy(tx, {
      get(target, prop, receiver) {
        if (prop !== "tasks") return Reflect.get(target, prop, receiver);
        const tasks = target.tasks;
        return {
          ...tasks,
          async updateMany(records: readonly Task[]) {
            saves += 1;
            if (failAt !== null && saves === failAt) throw new Error("disk full (injected)");
            return tasks.updateMany(records);
          },
          async patchMany(...args: Parameters<UnitOfWork["tasks"]["patchMany"]>) {
            saves += 1;
            if (failAt !== null && saves === failAt) throw new Error("disk full (injected)");
            return tasks.patchMany(...args);
          },
        };
      },
    });
  return {
    transaction: (work) => inner.transaction((tx) => work(wrapTx(tx))),
    read: (work) => inner.read(work),
    migrate: () => inner.migrate(),
    ping: () => inner.ping(),
    close: () => inner.close(),
    failOnSave(n) {
      failAt = n;
      saves = 0;
    },
  };
}

describe("bulk task operations", () => {
  let kit: CaseKit;
  let clock: ManualClock;
  let storage: ReturnType<typeof faultyStorage>;
  let admin: Principal;
  let organizationId: string;
  let caseId: string;

  const events = () => kit.storage.read((tx) => tx.events.list(organizationId, { limit: 5000 }));
  const auditLog = () => kit.storage.read((tx) => tx.audit.list(organizationId, { limit: 5000 }));
  const stored = (id: string) => kit.storage.read((tx) => tx.tasks.findById(organizationId, id));
  const addTask = (body: Record<string, unknown> = {}, onCase = caseId, by = admin) => kit.tasks.create(by, onCase, { title: "Task", ...body });

  /** `count` live tasks of `onCase` written straight through the port (fast, no events). */
  async function seedTasks(count: number, onCase = caseId): Promise<Task[]> {
    const at = clock.now().toISOString();
    const tasks: Task[] = [];
    for (let i = 0; i < count; i++) {
      tasks.push(taskRecord(kit.deps.ids.next("task"), organizationId, onCase, at, { title: `Seeded ${i}`, tlp: 1, order: i, createdBy: admin.userId }));
    }
    await kit.storage.transaction(async (tx) => {
      for (const task of tasks) await tx.tasks.insert(task);
    });
    return tasks;
  }

  beforeEach(async () => {
    const inner = createSqliteStorage({ path: ":memory:" });
    await inner.migrate();
    storage = faultyStorage(inner);
    clock = new ManualClock("2026-03-01T12:00:00.000Z");
    kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } });
    const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
    admin = await kit.authenticateKey(init.apiKey);
    organizationId = init.organization.id;
    caseId = (await kit.cases.create(admin, { title: "Phishing wave", severity: 3, tlp: 1 })).id;
  });

  describe("the request body", () => {
    it.each([
      ["ids and selectAll at once", { ids: ["task_1"], options: { selectAll: true }, fields: { status: "completed" } }, "options.selectAll"],
      ["neither ids nor selectAll", { fields: { status: "completed" } }, "ids"],
      ["selectAll: false without ids", { options: { selectAll: false }, fields: { status: "completed" } }, "ids"],
      ["filters without selectAll", { ids: ["task_1"], options: { filters: { status: "waiting" } }, fields: { status: "completed" } }, "options.filters"],
      ["more than 1 000 ids", { ids: Array.from({ length: maxBulkIds + 1 }, (_, i) => `task_${i}`), fields: { status: "completed" } }, "ids"],
      ["an empty ids list", { ids: [], fields: { status: "completed" } }, "ids"],
      ["no fields", { ids: ["task_1"] }, "fields"],
      ["empty fields", { ids: ["task_1"], fields: {} }, "fields"],
      ["a field bulk does not set", { ids: ["task_1"], fields: { order: 3 } }, "fields.order"],
      ["an unknown filter", { options: { selectAll: true, filters: { title: "x" } }, fields: { status: "completed" } }, "options.filters.title"],
      ["an unknown member", { ids: ["task_1"], fields: { status: "completed" }, dryRun: true }, "dryRun"],
    ])("%s is 400 validation_failed at %s, and nothing changes", async (_name, body, path) => {
      const task = await addTask();
      const result = await failure(kit.tasks.bulkUpdate(admin, body));
      expect(result.code).toBe("validation_failed");
      expect(result.paths).toContain(path);
      expect(await stored(task.id)).toEqual(task);
    });

    it("a status the task lifecycle does not have is 400 unknown_status at fields.status, and nothing changes", async () => {
      const task = await addTask();
      const result = await failure(kit.tasks.bulkUpdate(admin, { ids: [task.id], fields: { status: "done" } }));
      expect(result.code).toBe("unknown_status");
      expect(result.paths).toEqual(["fields.status"]);
      expect(await stored(task.id)).toEqual(task);
    });

    it("exactly 1 000 ids is accepted; unknown ones are skipped as not_found", async () => {
      const task = await addTask();
      const ids = [task.id, ...Array.from({ length: maxBulkIds - 1 }, (_, i) => `task_${String(i).padStart(26, "0")}`)];
      const result = await kit.tasks.bulkUpdate(admin, { ids, fields: { status: "in_progress" } });
      expect(result).toMatchObject({ matched: 1000, updated: 1 });
      expect(result.skipped).toHaveLength(999);
      expect(result.skipped.every((s) => s.code === "not_found")).toBe(true);
    });

    it("DELETE takes the same selection and no fields", async () => {
      expect((await failure(kit.tasks.bulkDelete(admin, { ids: ["task_1"], options: { selectAll: true } }))).paths).toContain("options.selectAll");
      expect((await failure(kit.tasks.bulkDelete(admin, { ids: ["task_1"], fields: { status: "completed" } }))).paths).toContain("fields");
      expect((await failure(kit.tasks.bulkDelete(admin, {}))).paths).toContain("ids");
    });
  });

  describe("by ids", () => {
    it("changes each named task, reports the rest as skipped with codes in request order", async () => {
      const assignee = await addUser(kit, organizationId);
      const a = await addTask();
      const b = await addTask({ status: "in_progress" });
      const done = await addTask({ status: "in_progress" });
      await kit.tasks.update(admin, done.id, { status: "completed" });
      const gone = await addTask();
      await kit.tasks.delete(admin, gone.id);
      const red = await addTask({ tlp: 4 });
      const redCase = (await kit.cases.create(admin, { title: "Insider", severity: 4, tlp: 4 })).id;
      const onRedCase = await addTask({ tlp: 0 }, redCase);
      const other = await addOrganization(kit, "Other SOC");
      const otherCase = (await kit.cases.create(other.admin, { title: "Theirs", severity: 2 })).id;
      const foreign = await kit.tasks.create(other.admin, otherCase, { title: "Theirs" });
      const amber = principalFor(admin, { tlpClearance: 2 });

      clock.advance(5000);
      const result = await kit.tasks.bulkUpdate(amber, {
        ids: [foreign.id, a.id, red.id, done.id, "task_01kaaaaaaaaaaaaaaaaaaaaaaa", b.id, gone.id, onRedCase.id, a.id],
        fields: { status: "waiting", assigneeId: assignee.id, dueDate: "2026-03-09T10:00:00+02:00" },
      });
      expect(result).toEqual({
        matched: 8,
        updated: 2,
        skipped: [
          { id: foreign.id, code: "not_found" },
          { id: red.id, code: "tlp_restricted" },
          { id: done.id, code: "invalid_transition" },
          { id: "task_01kaaaaaaaaaaaaaaaaaaaaaaa", code: "not_found" },
          { id: gone.id, code: "not_found" },
          { id: onRedCase.id, code: "tlp_restricted" },
        ],
        bulkRequestId: expect.stringMatching(/^bulk_[0-9a-z]{26}$/),
      });
      const at = clock.now().toISOString();
      for (const task of [a, b]) {
        expect(await stored(task.id)).toEqual({ ...task, status: "waiting", assigneeId: assignee.id, dueDate: "2026-03-09T08:00:00.000Z", updatedAt: at });
      }
      for (const untouched of [red, onRedCase]) expect(await stored(untouched.id)).toEqual(untouched);
      expect((await stored(done.id))?.status).toBe("completed");
      expect(await kit.storage.read((tx) => tx.tasks.findById(other.organizationId, foreign.id))).toEqual(foreign);
    });

    it("each changed task gets one audit entry and one event carrying the bulk request id", async () => {
      const [a, b] = [await addTask(), await addTask()];
      const result = await kit.tasks.bulkUpdate(admin, { ids: [a!.id, b!.id, "task_01kaaaaaaaaaaaaaaaaaaaaaaa"], fields: { mandatory: true } });
      const bulkEvents = (await events()).filter((e) => e.bulkRequestId === result.bulkRequestId);
      expect(bulkEvents.map((e) => [e.name, e.resourceId]).sort()).toEqual([
        ["task.updated", a!.id],
        ["task.updated", b!.id],
      ].sort());
      expect(bulkEvents.every((e) => e.payload.mandatory === true)).toBe(true);
      const bulkAudit = (await auditLog()).filter((e) => e.bulkRequestId === result.bulkRequestId);
      expect(bulkAudit.map((e) => [e.action, e.target.id]).sort()).toEqual([
        ["task.updated", a!.id],
        ["task.updated", b!.id],
      ].sort());
      expect(bulkAudit[0]!.changes).toEqual([{ path: "mandatory", before: false, after: true }]);
    });

    it("records above the caller's clearance are written to the TLP audit log as denied", async () => {
      const red = await addTask({ tlp: 4 });
      const amber = principalFor(admin, { tlpClearance: 2 });
      await kit.tasks.bulkDelete(amber, { ids: [red.id] });
      const denied = await kit.storage.read((tx) => tx.tlpAudit.list(organizationId, { resourceType: ["task"], outcome: "denied" }, { limit: 10 }));
      expect(denied).toEqual([expect.objectContaining({ resourceId: red.id, action: "delete", outcome: "denied", tlpBefore: 4 })]);
    });

    it("a new tlp above the caller's clearance, or an assignee who is not an active user, fails the whole request", async () => {
      const a = await addTask();
      const amber = principalFor(admin, { tlpClearance: 2 });
      expect((await failure(kit.tasks.bulkUpdate(amber, { ids: [a.id], fields: { tlp: 3 } }))).code).toBe("tlp_restricted");
      const disabled = await addUser(kit, organizationId, { status: "disabled" });
      expect(await failure(kit.tasks.bulkUpdate(admin, { ids: [a.id], fields: { assigneeId: disabled.id } }))).toEqual({ code: "unknown_reference", paths: ["fields.assigneeId"] });
      expect(await stored(a.id)).toEqual(a);
      expect((await events()).filter((e) => e.name === "task.updated")).toEqual([]);
    });

    it("bulk delete soft-deletes: the tasks leave get and lists, and a second run finds nothing", async () => {
      const [a, b, kept] = [await addTask(), await addTask(), await addTask()];
      clock.advance(1000);
      const result = await kit.tasks.bulkDelete(admin, { ids: [a!.id, b!.id] });
      expect(result).toMatchObject({ matched: 2, deleted: 2, skipped: [] });
      expect(await stored(a!.id)).toBeNull();
      expect((await kit.tasks.list(admin, {})).data.map((t) => t.id)).toEqual([kept!.id]);
      expect((await events()).filter((e) => e.name === "task.deleted" && e.bulkRequestId === result.bulkRequestId)).toHaveLength(2);
      const again = await kit.tasks.bulkDelete(admin, { ids: [a!.id, b!.id] });
      expect(again).toMatchObject({ matched: 2, deleted: 0, skipped: [{ id: a!.id, code: "not_found" }, { id: b!.id, code: "not_found" }] });
    });
  });

  describe("selectAll", () => {
    it("acts on exactly what GET /tasks with the same filters lists: never deleted tasks, never above clearance", async () => {
      const second = (await kit.cases.create(admin, { title: "Second", severity: 2, tlp: 1 })).id;
      const waiting = [await addTask(), await addTask({ mandatory: true })];
      const elsewhere = await addTask({}, second);
      const started = await addTask({ status: "in_progress" });
      const gone = await addTask();
      await kit.tasks.delete(admin, gone.id);
      const red = await addTask({ tlp: 4 });
      const other = await addOrganization(kit, "Other SOC");
      const foreign = await kit.tasks.create(other.admin, (await kit.cases.create(other.admin, { title: "Theirs", severity: 2 })).id, { title: "Theirs" });
      const amber = principalFor(admin, { tlpClearance: 2 });

      const filters = { status: "waiting", caseId };
      const listed = (await kit.tasks.list(amber, { ...filters, limit: "500" })).data.map((t) => t.id);
      expect(listed.sort()).toEqual(waiting.map((t) => t.id).sort());
      const result = await kit.tasks.bulkUpdate(amber, { options: { selectAll: true, filters: { status: ["waiting"], caseId: [caseId] } }, fields: { status: "cancelled" } });
      expect(result).toMatchObject({ matched: 2, updated: 2, skipped: [] });
      for (const t of waiting) expect((await stored(t.id))?.status).toBe("cancelled");
      for (const untouched of [elsewhere, started, red]) expect(await stored(untouched.id)).toEqual(untouched);
      expect(await kit.storage.read((tx) => tx.tasks.findById(organizationId, gone.id))).toBeNull();
      expect(await kit.storage.read((tx) => tx.tasks.findById(other.organizationId, foreign.id))).toEqual(foreign);

      // Without filters: every live task the caller can see (the RED one stays out of reach).
      const all = await kit.tasks.bulkDelete(amber, { options: { selectAll: true } });
      expect(all).toMatchObject({ matched: 4, deleted: 4, skipped: [] });
      expect((await kit.tasks.list(admin, {})).data.map((t) => t.id)).toEqual([red.id]);
    });

    it("walks more than one page (1 000 per page) and skips invalid transitions without stopping", async () => {
      const seeded = await seedTasks(2100);
      await kit.storage.transaction((tx) => tx.tasks.updateMany(seeded.slice(0, 3).map((t) => ({ ...t, status: "completed" as const }))));
      const result = await kit.tasks.bulkUpdate(admin, { options: { selectAll: true }, fields: { status: "cancelled" } });
      expect(result.matched).toBe(2100);
      expect(result.updated).toBe(2097);
      expect(result.skipped.map((s) => s.code)).toEqual(["invalid_transition", "invalid_transition", "invalid_transition"]);
      expect((await kit.tasks.list(admin, { status: "cancelled", limit: "1" })).data).toHaveLength(1);
      expect((await kit.tasks.list(admin, { status: "waiting" })).data).toEqual([]);
      expect((await events()).filter((e) => e.bulkRequestId === result.bulkRequestId)).toHaveLength(2097);
    });
  });

  describe("all or nothing", () => {
    it("a fault while writing the second page of ids leaves every task, audit entry and event as before", async () => {
      const seeded = await seedTasks(700);
      const eventsBefore = await events();
      const auditBefore = await auditLog();
      storage.failOnSave(2);
      await expect(kit.tasks.bulkUpdate(admin, { ids: seeded.map((t) => t.id), fields: { title: "Renamed" } })).rejects.toThrow("disk full (injected)");
      for (const task of [seeded[0]!, seeded[499]!, seeded[500]!, seeded[699]!]) expect(await stored(task.id)).toEqual(task);
      expect((await kit.tasks.list(admin, { limit: "500" })).data.every((t) => t.title.startsWith("Seeded"))).toBe(true);
      expect(await events()).toEqual(eventsBefore);
      expect(await auditLog()).toEqual(auditBefore);

      // The same request without the fault goes through.
      storage.failOnSave(null);
      expect(await kit.tasks.bulkUpdate(admin, { ids: seeded.map((t) => t.id), fields: { title: "Renamed" } })).toMatchObject({ matched: 700, updated: 700 });
    });

    it("a fault on the second selectAll page of a bulk delete deletes nothing", async () => {
      await seedTasks(1500);
      storage.failOnSave(2);
      await expect(kit.tasks.bulkDelete(admin, { options: { selectAll: true } })).rejects.toThrow("disk full (injected)");
      const remaining = await kit.storage.read((tx) => tx.tasks.list(organizationId, { maxTlp: 4 }, { limit: 5000 }));
      expect(remaining).toHaveLength(1500);
      expect((await events()).filter((e) => e.name === "task.deleted")).toEqual([]);
    });
  });
});
