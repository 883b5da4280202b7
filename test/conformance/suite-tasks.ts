import { beforeEach, describe, expect, it } from "vitest";
import type { Case, Organization, Principal, Storage, StoredUser, Task, TaskFilter, TaskStatus } from "../../core/index.js";
import { allScopes, createCaseKit } from "../../core/index.js";
import type { UnitOfWork } from "../../core/ports/storage.js";
import { taskRecord } from "./task-record.js";
import type { Fixtures } from "./fixtures.js";
import { shuffled } from "./fixtures.js";
import { readBack } from "./audit-reads.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined, idsOf, newestFirst, walkPages } from "./suite-context.js";

/** A complete live task of a case, created now. */
function task(f: Fixtures, organizationId: string, caseId: string, overrides: Partial<Task> = {}): Task {
  return taskRecord(f.ids.next("task"), organizationId, caseId, f.at(), overrides);
}

/** The list semantics the port promises, written out plainly (the case's marking is checked separately). */
function matches(record: Task, filter: TaskFilter): boolean {
  const anyOf = <T>(values: readonly T[] | undefined, value: T) => values === undefined || values.includes(value);
  const due = record.dueDate === null ? null : Date.parse(record.dueDate);
  return (
    record.deletedAt === null &&
    record.tlp <= filter.maxTlp &&
    anyOf(filter.status, record.status) &&
    (filter.assigneeId === undefined || (record.assigneeId !== null && filter.assigneeId.includes(record.assigneeId))) &&
    anyOf(filter.caseId, record.caseId) &&
    anyOf(filter.tlp, record.tlp) &&
    (filter.mandatory === undefined || record.mandatory === filter.mandatory) &&
    (filter.dueAfter === undefined || (due !== null && due >= Date.parse(filter.dueAfter))) &&
    (filter.dueBefore === undefined || (due !== null && due < Date.parse(filter.dueBefore)))
  );
}

/** The organization's admin as the core sees it (every scope, RED clearance), for the bulk runs. */
function principalOf(org: Organization, user: StoredUser): Principal {
  return { organizationId: org.id, userId: user.id, keyId: null, authenticatedBy: "host", role: "admin", tier: null, scopes: new Set(allScopes), tlpClearance: 4 };
}

/** The storage, with its page writes (`tasks.updateMany`, `tasks.patchMany`) throwing on the second call of each unit of work. */
function failingOnSecondSave(inner: Storage): Storage {
  const wrap = (tx: UnitOfWork): UnitOfWork => {
    let saves = 0;
    const tasks = tx.tasks;
    const failing = {
      ...tasks,
      async updateMany(records: readonly Task[]) {
        saves += 1;
        if (saves === 2) throw new Error("injected fault on the second page");
        return tasks.updateMany(records);
      },
      async patchMany(...args: Parameters<UnitOfWork["tasks"]["patchMany"]>) {
        saves += 1;
        if (saves === 2) throw new Error("injected fault on the second page");
        return tasks.patchMany(...args);
      },
    };
    return new Proxy(tx, { get: (target, prop, receiver) => (prop === "tasks" ? failing : Reflect.get(target, prop, receiver)) });
  };
  return {
    transaction: (work) => inner.transaction((tx) => work(wrap(tx))),
    read: (work) => inner.read(work),
    migrate: () => inner.migrate(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

/** Tasks: round trips, soft delete, bulk reads and writes, the mandatory check, lists and bulk runs. */
export function describeTasks(ctx: SuiteContext): void {
  describe("tasks", () => {
    let org: Organization;
    let user: StoredUser;
    let parentCase: Case;

    beforeEach(async () => {
      ({ org, user } = await ctx.seedOrganization());
      parentCase = ctx.fixtures().caseRecord(org.id, { tlp: 2 });
      await ctx.storage().transaction((tx) => tx.cases.insert(parentCase));
    });

    const find = (organizationId: string, id: string) => ctx.storage().read((tx) => tx.tasks.findById(organizationId, id));
    const insert = (...records: Task[]) =>
      ctx.storage().transaction(async (tx) => {
        for (const r of records) await tx.tasks.insert(r);
      });

    it("insert then findById returns the record intact, with null for absent values", async () => {
      const f = ctx.fixtures();
      const full = task(f, org.id, parentCase.id, {
        title: `Call "Bob" about it's ☕`,
        description: "Line one\nline two",
        status: "in_progress",
        assigneeId: user.id,
        dueDate: "2026-03-02T08:00:00.000Z",
        mandatory: true,
        tlp: 4,
        order: 1_000_000_000,
        createdBy: user.id,
      });
      const bare = task(f, org.id, parentCase.id);
      await insert(full, bare);
      expect(await find(org.id, full.id)).toStrictEqual(full);
      const found = await find(org.id, bare.id);
      expect(found).toStrictEqual(bare);
      expectNoUndefined(found);
      expect(found?.mandatory).toBe(false);
    });

    it("findById is null for another organization, an unknown id and a soft-deleted task; a taken id is a conflict", async () => {
      const f = ctx.fixtures();
      const record = task(f, org.id, parentCase.id);
      await insert(record);
      await expectConflict(insert({ ...task(f, org.id, parentCase.id), id: record.id }));
      const { org: other } = await ctx.seedOrganization();
      expect(await find(other.id, record.id)).toBeNull();
      expect(await find(org.id, f.ids.next("task"))).toBeNull();
      expect(await ctx.storage().transaction((tx) => tx.tasks.update({ ...record, deletedAt: f.at(), deletedBy: user.id }))).toBe(true);
      expect(await find(org.id, record.id)).toBeNull();
    });

    it("update writes the mutable fields only, and is false for another organization, an unknown or a deleted task", async () => {
      const f = ctx.fixtures();
      const before = task(f, org.id, parentCase.id, { description: "first", dueDate: f.at() });
      await insert(before);
      f.clock.advance(60_000);
      const after: Task = { ...before, title: "Renamed", description: null, status: "completed", assigneeId: user.id, dueDate: null, mandatory: true, tlp: 3, order: 9, updatedAt: f.at() };
      expect(await ctx.storage().transaction((tx) => tx.tasks.update(after))).toBe(true);
      expect(await find(org.id, before.id)).toStrictEqual(after);
      // Identity, case and creation are fixed at insert.
      const otherCase = f.caseRecord(org.id);
      await ctx.storage().transaction((tx) => tx.cases.insert(otherCase));
      expect(await ctx.storage().transaction((tx) => tx.tasks.update({ ...after, caseId: otherCase.id, createdAt: f.at(), createdBy: "user_y" }))).toBe(true);
      expect(await find(org.id, before.id)).toStrictEqual(after);

      const { org: other } = await ctx.seedOrganization();
      expect(await ctx.storage().transaction((tx) => tx.tasks.update({ ...after, organizationId: other.id, title: "hijack" }))).toBe(false);
      expect(await ctx.storage().transaction((tx) => tx.tasks.update(task(f, org.id, parentCase.id)))).toBe(false);
      const deleted = { ...after, deletedAt: f.at(), deletedBy: user.id };
      expect(await ctx.storage().transaction((tx) => tx.tasks.update(deleted))).toBe(true);
      expect(await ctx.storage().transaction((tx) => tx.tasks.update({ ...deleted, title: "after death", deletedAt: null }))).toBe(false);
    });

    it("findMany: the live tasks among the ids with their case's TLP, of that organization only", async () => {
      const f = ctx.fixtures();
      const redCase = f.caseRecord(org.id, { tlp: 4 });
      const { org: other } = await ctx.seedOrganization();
      const theirCase = f.caseRecord(other.id);
      await ctx.storage().transaction(async (tx) => {
        await tx.cases.insert(redCase);
        await tx.cases.insert(theirCase);
      });
      const a = task(f, org.id, parentCase.id, { tlp: 0 });
      const b = task(f, org.id, redCase.id, { tlp: 1 });
      const gone = task(f, org.id, parentCase.id, { deletedAt: f.at(), deletedBy: user.id });
      const theirs = task(f, other.id, theirCase.id);
      await insert(a, b, gone, theirs);
      const found = await ctx.storage().read((tx) => tx.tasks.findMany(org.id, [a.id, b.id, gone.id, theirs.id, f.ids.next("task")]));
      expect([...found].sort((x, y) => x.task.id.localeCompare(y.task.id))).toStrictEqual(
        [
          { task: a, caseTlp: 2 },
          { task: b, caseTlp: 4 },
        ].sort((x, y) => x.task.id.localeCompare(y.task.id)),
      );
      expect(await ctx.storage().read((tx) => tx.tasks.findMany(org.id, []))).toEqual([]);
    });

    it("updateMany writes a page of tasks in one call and counts only the live ones it wrote", async () => {
      const f = ctx.fixtures();
      const records = Array.from({ length: 5 }, (_, i) => task(f, org.id, parentCase.id, { order: i }));
      const gone = task(f, org.id, parentCase.id, { deletedAt: f.at(), deletedBy: user.id });
      await insert(...records, gone);
      f.clock.advance(1000);
      const changed = records.map((r, i) => ({ ...r, status: "completed" as TaskStatus, assigneeId: i % 2 === 0 ? user.id : null, dueDate: f.at(), mandatory: i === 1, updatedAt: f.at() }));
      const written = await ctx.storage().transaction((tx) => tx.tasks.updateMany([...changed, { ...gone, title: "revived?", deletedAt: null }]));
      expect(written).toBe(5);
      for (const r of changed) expect(await find(org.id, r.id)).toStrictEqual(r);
      expect(await find(org.id, gone.id)).toBeNull();
      expect(await ctx.storage().transaction((tx) => tx.tasks.updateMany([]))).toBe(0);
    });

    it("patchMany sets the same fields on the live tasks among ids, never a deleted or another organization's one", async () => {
      const f = ctx.fixtures();
      const records = Array.from({ length: 4 }, (_, i) => task(f, org.id, parentCase.id, { order: i }));
      const gone = task(f, org.id, parentCase.id, { deletedAt: f.at(), deletedBy: user.id });
      await insert(...records, gone);
      const { org: other } = await ctx.seedOrganization();
      f.clock.advance(1000);
      const patch = { status: "in_progress" as TaskStatus, assigneeId: user.id, updatedAt: f.at() };
      const ids = [records[0]!.id, records[2]!.id, records[3]!.id, gone.id];
      expect(await ctx.storage().transaction((tx) => tx.tasks.patchMany(other.id, ids, patch))).toBe(0);
      expect(await ctx.storage().transaction((tx) => tx.tasks.patchMany(org.id, ids, patch))).toBe(3);
      for (const r of [records[0]!, records[2]!, records[3]!]) expect(await find(org.id, r.id)).toStrictEqual({ ...r, ...patch });
      expect(await find(org.id, records[1]!.id)).toStrictEqual(records[1]);
      expect(await find(org.id, gone.id)).toBeNull();
      expect(await ctx.storage().transaction((tx) => tx.tasks.patchMany(org.id, [], patch))).toBe(0);
    });

    it("maxOrder and hasOpenMandatory look at the case's live tasks only", async () => {
      const f = ctx.fixtures();
      const otherCase = f.caseRecord(org.id);
      await ctx.storage().transaction((tx) => tx.cases.insert(otherCase));
      const state = () =>
        ctx.storage().read(async (tx) => ({ max: await tx.tasks.maxOrder(org.id, parentCase.id), open: await tx.tasks.hasOpenMandatory(org.id, parentCase.id) }));
      expect(await state()).toEqual({ max: null, open: false });
      const high = task(f, org.id, parentCase.id, { order: 50, deletedAt: f.at(), deletedBy: user.id, mandatory: true });
      const elsewhere = task(f, org.id, otherCase.id, { order: 99, mandatory: true });
      const optional = task(f, org.id, parentCase.id, { order: 3 });
      await insert(high, elsewhere, optional);
      expect(await state()).toEqual({ max: 3, open: false });
      const mandatory = task(f, org.id, parentCase.id, { order: 7, mandatory: true, status: "in_progress" });
      await insert(mandatory);
      expect(await state()).toEqual({ max: 7, open: true });
      for (const status of ["completed", "cancelled"] as const) {
        await ctx.storage().transaction((tx) => tx.tasks.update({ ...mandatory, status }));
        expect((await state()).open).toBe(false);
      }
      await ctx.storage().transaction((tx) => tx.tasks.update({ ...mandatory, status: "waiting" }));
      expect((await state()).open).toBe(true);
      const { org: other } = await ctx.seedOrganization();
      expect(await ctx.storage().read((tx) => tx.tasks.hasOpenMandatory(other.id, parentCase.id))).toBe(false);
    });

    describe("tasks.list", () => {
      let mine: Task[];
      let greenCase: Case;
      let redCase: Case;
      let assignees: string[];
      const day = 86_400_000;

      beforeEach(async () => {
        const f = ctx.fixtures();
        greenCase = f.caseRecord(org.id, { tlp: 1 });
        redCase = f.caseRecord(org.id, { tlp: 4 });
        const { org: other } = await ctx.seedOrganization();
        const theirCase = f.caseRecord(other.id, { tlp: 0 });
        await ctx.storage().transaction(async (tx) => {
          for (const c of [greenCase, redCase, theirCase]) await tx.cases.insert(c);
        });
        assignees = [user.id, f.ids.next("user")];
        const cases = [parentCase, greenCase, redCase];
        const statuses: TaskStatus[] = ["waiting", "in_progress", "completed", "cancelled"];
        mine = [];
        for (let i = 0; i < 30; i++) {
          f.clock.advance(60_000);
          mine.push(
            task(f, org.id, cases[i % 3]!.id, {
              status: statuses[i % 4]!,
              assigneeId: i % 5 === 0 ? null : assignees[i % 2]!,
              dueDate: i % 6 === 0 ? null : new Date(Date.parse("2026-03-01T00:00:00Z") + (i % 10) * day).toISOString(),
              mandatory: i % 4 === 1,
              tlp: i % 3 === 1 ? i % 2 : i % 5 === 4 ? 3 : 1,
              order: i,
              deletedAt: i % 7 === 6 ? f.at() : null,
              deletedBy: i % 7 === 6 ? user.id : null,
            }),
          );
        }
        const theirs = Array.from({ length: 6 }, (_, i) => task(f, other.id, theirCase.id, { status: statuses[i % 4]!, assigneeId: user.id, tlp: 0 }));
        await insert(...shuffled([...mine, ...theirs]));
      });

      const caseTlp = (record: Task) => [parentCase, greenCase, redCase].find((c) => c.id === record.caseId)!.tlp;
      const expected = (filter: TaskFilter) => newestFirst(mine.filter((r) => matches(r, filter) && caseTlp(r) <= filter.maxTlp));
      const list = (filter: TaskFilter, limit = 1000, beforeId?: string) =>
        ctx.storage().read((tx) => tx.tasks.list(org.id, filter, beforeId === undefined ? { limit } : { limit, beforeId }));

      async function expectList(filter: TaskFilter): Promise<Task[]> {
        const found = await list(filter);
        expect(idsOf(found)).toEqual(idsOf(expected(filter)));
        expect(found).toStrictEqual(expected(filter));
        return found;
      }

      it("with no filter: every live task of the organization, newest first, never a deleted one", async () => {
        const found = await expectList({ maxTlp: 4 });
        expect(found.length).toBe(mine.filter((r) => r.deletedAt === null).length);
      });

      const filters: [string, () => Omit<TaskFilter, "maxTlp">][] = [
        ["status", () => ({ status: ["waiting"] })],
        ["status, any of several", () => ({ status: ["waiting", "in_progress"] })],
        ["caseId", () => ({ caseId: [greenCase.id] })],
        ["caseId, any of several", () => ({ caseId: [greenCase.id, parentCase.id] })],
        ["assigneeId", () => ({ assigneeId: [assignees[0]!] })],
        ["assigneeId, any of several", () => ({ assigneeId: assignees })],
        ["mandatory true", () => ({ mandatory: true })],
        ["mandatory false", () => ({ mandatory: false })],
        ["tlp", () => ({ tlp: [1] })],
        ["dueAfter (inclusive)", () => ({ dueAfter: "2026-03-05T00:00:00.000Z" })],
        ["dueBefore (exclusive)", () => ({ dueBefore: "2026-03-05T00:00:00.000Z" })],
        ["a due window given with an offset", () => ({ dueAfter: "2026-03-03T01:00:00+01:00", dueBefore: "2026-03-08T00:00:00Z" })],
        ["several members at once", () => ({ status: ["waiting", "completed"], caseId: [parentCase.id], mandatory: false })],
      ];
      it.each(filters)("filter: %s", async (_name, build) => {
        const found = await expectList({ maxTlp: 4, ...build() });
        expect(found.length).toBeGreaterThan(0);
      });

      it("an empty any-of list matches nothing", async () => {
        expect(await list({ maxTlp: 4, status: [] })).toEqual([]);
        expect(await list({ maxTlp: 4, caseId: [] })).toEqual([]);
      });

      it("maxTlp leaves out tasks above it and tasks whose case is above it", async () => {
        const found = await expectList({ maxTlp: 2 });
        expect(found.length).toBeGreaterThan(0);
        expect(found.some((r) => r.caseId === redCase.id)).toBe(false);
        expect(found.every((r) => r.tlp <= 2)).toBe(true);
        const green = await expectList({ maxTlp: 1 });
        expect(green.every((r) => r.caseId === greenCase.id && r.tlp <= 1)).toBe(true);
        expect(await list({ maxTlp: 1, caseId: [redCase.id] })).toEqual([]);
      });

      it("keyset pages walk every match exactly once, newest first", async () => {
        const all = idsOf(expected({ maxTlp: 4 }));
        for (const size of [1, 4, 7]) {
          expect(await walkPages((page) => ctx.storage().read((tx) => tx.tasks.list(org.id, { maxTlp: 4 }, page)), size)).toEqual(all);
        }
        const waiting = idsOf(expected({ maxTlp: 4, status: ["waiting"], caseId: [parentCase.id] }));
        expect(await walkPages((page) => ctx.storage().read((tx) => tx.tasks.list(org.id, { maxTlp: 4, status: ["waiting"], caseId: [parentCase.id] }, page)), 2)).toEqual(waiting);
      });

      it("limit 0 returns nothing", async () => {
        expect(await list({ maxTlp: 4 }, 0)).toEqual([]);
      });
    });

    describe("bulk operations on this storage", () => {
      const kitOn = (storage: Storage) => createCaseKit({ ...(ctx.passwordHasher ? { passwordHasher: ctx.passwordHasher } : {}), storage, clock: ctx.fixtures().clock, config: { keyHashSecret: "conformance-key-hash-secret-0123456789" } });

      it("audit.appendMany and events.appendMany write a whole page intact (more rows than one statement takes); a taken id is a conflict", async () => {
        const f = ctx.fixtures();
        const entries = Array.from({ length: 1234 }, (_, i) => f.auditEntry(org.id, { bulkRequestId: "bulk_1", changes: [{ path: "order", before: i, after: i + 1 }] }));
        const head = await ctx.storage().read((tx) => tx.audit.head(org.id));
        const events = Array.from({ length: 1234 }, (_, i) => f.event(org.id, { bulkRequestId: "bulk_1", tlp: i % 5, payload: { n: i, note: `it's "${i}" ☕` } }));
        await ctx.storage().transaction(async (tx) => {
          await tx.audit.appendMany(entries);
          await tx.events.appendMany(events);
          await tx.audit.appendMany([]);
          await tx.events.appendMany([]);
        });
        expect(await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 2000 }))).toStrictEqual(readBack(entries, head.seq + 1).reverse());
        expect(await ctx.storage().read((tx) => tx.events.list(org.id, { limit: 2000 }))).toStrictEqual(newestFirst(events));
        await expectConflict(ctx.storage().transaction((tx) => tx.audit.appendMany([f.auditEntry(org.id), { ...f.auditEntry(org.id), id: entries[7]!.id }])));
        await expectConflict(ctx.storage().transaction((tx) => tx.events.appendMany([{ ...f.event(org.id), id: events[1200]!.id }])));
        expect(await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 2000 }))).toHaveLength(1234);
      });

      it("selectAll never selects a soft-deleted task, nor one of another organization", async () => {
        const f = ctx.fixtures();
        const live = Array.from({ length: 4 }, () => task(f, org.id, parentCase.id));
        const gone = task(f, org.id, parentCase.id, { deletedAt: f.at(), deletedBy: user.id });
        const { org: other } = await ctx.seedOrganization();
        const theirCase = f.caseRecord(other.id);
        await ctx.storage().transaction((tx) => tx.cases.insert(theirCase));
        const theirs = task(f, other.id, theirCase.id);
        await insert(...live, gone, theirs);
        const kit = kitOn(ctx.storage());
        const result = await kit.tasks.bulkUpdate(principalOf(org, user), { options: { selectAll: true }, fields: { status: "cancelled" } });
        expect(result).toMatchObject({ matched: 4, updated: 4, skipped: [] });
        for (const r of live) expect((await find(org.id, r.id))?.status).toBe("cancelled");
        expect(await ctx.storage().read((tx) => tx.tasks.findMany(org.id, [gone.id]))).toEqual([]);
        expect(await find(other.id, theirs.id)).toStrictEqual(theirs);
        const events = await ctx.storage().read((tx) => tx.events.list(org.id, { limit: 100 }));
        expect(events.filter((e) => e.bulkRequestId === result.bulkRequestId).map((e) => e.resourceId).sort()).toEqual(idsOf(live).sort());
      });

      it("a bulk update that throws halfway (second page) changes nothing: no task, audit entry or event", async () => {
        const f = ctx.fixtures();
        const records = Array.from({ length: 1005 }, (_, i) => task(f, org.id, parentCase.id, { order: i }));
        await insert(...records);
        const kit = kitOn(failingOnSecondSave(ctx.storage()));
        const principal = principalOf(org, user);
        await expect(kit.tasks.bulkUpdate(principal, { options: { selectAll: true }, fields: { status: "in_progress", title: "Renamed" } })).rejects.toThrow("injected fault");
        const after = await ctx.storage().read((tx) => tx.tasks.list(org.id, { maxTlp: 4 }, { limit: 2000 }));
        expect(after).toHaveLength(1005);
        expect(after.every((r) => r.status === "waiting" && r.title === "Collect mail headers")).toBe(true);
        expect(await ctx.storage().read((tx) => tx.events.list(org.id, { limit: 10 }))).toEqual([]);
        expect(await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 10 }))).toEqual([]);

        // The same request on the plain storage goes through, over both pages.
        const done = await kitOn(ctx.storage()).tasks.bulkUpdate(principal, { options: { selectAll: true }, fields: { status: "in_progress" } });
        expect(done).toMatchObject({ matched: 1005, updated: 1005 });
      });
    });
  });
}
