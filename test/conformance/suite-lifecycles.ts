import { beforeEach, describe, expect, it } from "vitest";
import type { Organization, StatusChange, StoredLifecycle } from "../../core/index.js";
import { defaultLifecycles } from "../../core/index.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined, idsOf } from "./suite-context.js";

/** Lifecycle versions and status history: what core/lifecycles and core/history rely on. */
export function describeLifecycles(ctx: SuiteContext): void {
  let org: Organization;
  let other: Organization;
  let sequence = 0;
  // Ids sort by creation, as the id generator's do; a fixed width keeps text order numeric.
  const nextId = (prefix: string) => `${prefix}_01k${String(++sequence).padStart(23, "0")}`;

  beforeEach(async () => {
    ({ org } = await ctx.seedOrganization());
    ({ org: other } = await ctx.seedOrganization());
  });

  const version = (organizationId: string, entity: StoredLifecycle["entity"], n: number, key = "default"): StoredLifecycle => ({
    id: nextId("lcy"),
    organizationId,
    entity,
    key,
    version: n,
    statuses: defaultLifecycles[entity].statuses,
    transitions: defaultLifecycles[entity].transitions,
    mapping: n === 1 ? {} : { on_hold: "in_progress" },
    createdAt: `2026-01-0${n}T00:00:00.000Z`,
    createdBy: null,
  });

  const change = (organizationId: string, recordId: string, from: string | null, to: string): StatusChange => ({
    id: nextId("sth"),
    organizationId,
    entity: "case",
    recordId,
    from,
    to,
    fromCategory: from === null ? null : "new",
    toCategory: "in_progress",
    actorUserId: "user_01kaaaaaaaaaaaaaaaaaaaaaaa",
    actorKeyId: null,
    at: "2026-01-01T00:00:00.000Z",
    reason: from === null ? null : "because",
  });

  describe("lifecycles", () => {
    it("current is null before any version, then the newest version of that entity, of that organization only", async () => {
      const s = ctx.storage();
      expect(await s.read((tx) => tx.lifecycles.current(org.id, "case", "default"))).toBeNull();
      const first = version(org.id, "case", 1);
      const second = version(org.id, "case", 2);
      const task = version(org.id, "task", 1);
      await s.transaction(async (tx) => {
        for (const record of [first, second, task]) await tx.lifecycles.insert(record);
      });
      const current = await s.read((tx) => tx.lifecycles.current(org.id, "case", "default"));
      expect(current).toStrictEqual(second);
      expectNoUndefined(current);
      expect(await s.read((tx) => tx.lifecycles.current(org.id, "task", "default"))).toStrictEqual(task);
      expect(await s.read((tx) => tx.lifecycles.current(org.id, "alert", "default"))).toBeNull();
      expect(await s.read((tx) => tx.lifecycles.current(other.id, "case", "default"))).toBeNull();
      expect(idsOf(await s.read((tx) => tx.lifecycles.versions(org.id, "case", "default", { limit: 10 })))).toEqual([second.id, first.id]);
      expect(idsOf(await s.read((tx) => tx.lifecycles.versions(org.id, "case", "default", { limit: 10, beforeId: second.id })))).toEqual([first.id]);
      expect(await s.read((tx) => tx.lifecycles.versions(other.id, "case", "default", { limit: 10 }))).toEqual([]);
    });

    it("named lifecycles keep their own versions: current, versions and currentAll answer per key", async () => {
      const s = ctx.storage();
      const base = version(org.id, "case", 1);
      const fast = version(org.id, "case", 1, "fast");
      const fast2 = version(org.id, "case", 2, "fast");
      const slow = version(org.id, "case", 1, "slow");
      const otherFast = version(other.id, "case", 1, "fast");
      await s.transaction(async (tx) => {
        for (const record of [base, fast, slow, fast2, otherFast]) await tx.lifecycles.insert(record);
      });
      expect(await s.read((tx) => tx.lifecycles.current(org.id, "case", "fast"))).toStrictEqual(fast2);
      expect(await s.read((tx) => tx.lifecycles.current(org.id, "case", "default"))).toStrictEqual(base);
      expect(await s.read((tx) => tx.lifecycles.current(org.id, "case", "none"))).toBeNull();
      expect(idsOf(await s.read((tx) => tx.lifecycles.versions(org.id, "case", "fast", { limit: 10 })))).toEqual([fast2.id, fast.id]);
      expect(idsOf(await s.read((tx) => tx.lifecycles.versions(org.id, "case", "slow", { limit: 10 })))).toEqual([slow.id]);
      const all = await s.read((tx) => tx.lifecycles.currentAll(org.id, "case"));
      expect(all).toStrictEqual([base, fast2, slow]);
      expect(await s.read((tx) => tx.lifecycles.currentAll(org.id, "task"))).toEqual([]);
      expect(idsOf(await s.read((tx) => tx.lifecycles.currentAll(other.id, "case")))).toEqual([otherFast.id]);
      // Version 1 of another key is no clash; the same key's is.
      await expectConflict(s.transaction((tx) => tx.lifecycles.insert(version(org.id, "case", 2, "fast"))));
    });

    it("a second version with the same number is a conflict, and the unit stays usable", async () => {
      const s = ctx.storage();
      await s.transaction((tx) => tx.lifecycles.insert(version(org.id, "alert", 1)));
      await expectConflict(s.transaction((tx) => tx.lifecycles.insert(version(org.id, "alert", 1))));
      // Another organization's version 1 is no clash.
      await s.transaction((tx) => tx.lifecycles.insert(version(other.id, "alert", 1)));
    });
  });

  describe("status history", () => {
    it("a record's changes come back oldest first, every field intact, in pages, never another record's or tenant's", async () => {
      const s = ctx.storage();
      const mine = [change(org.id, "case_a", null, "new"), change(org.id, "case_a", "new", "in_progress"), change(org.id, "case_a", "in_progress", "closed")];
      await s.transaction(async (tx) => {
        await tx.statusHistory.append(mine[0]!);
        await tx.statusHistory.appendMany([mine[1]!, change(org.id, "case_b", null, "new"), mine[2]!, change(other.id, "case_a", null, "new")]);
      });
      const all = await s.read((tx) => tx.statusHistory.listByRecord(org.id, "case", "case_a", { limit: 10 }));
      expect(all).toStrictEqual(mine);
      expectNoUndefined(all);
      const first = await s.read((tx) => tx.statusHistory.listByRecord(org.id, "case", "case_a", { limit: 2 }));
      expect(idsOf(first)).toEqual(idsOf(mine.slice(0, 2)));
      const rest = await s.read((tx) => tx.statusHistory.listByRecord(org.id, "case", "case_a", { limit: 2, afterId: first[1]!.id }));
      expect(idsOf(rest)).toEqual([mine[2]!.id]);
      expect(await s.read((tx) => tx.statusHistory.listByRecord(org.id, "task", "case_a", { limit: 10 }))).toEqual([]);
    });

    it("appendMany is all or none: a taken id refuses the whole page", async () => {
      const s = ctx.storage();
      const taken = change(org.id, "case_c", null, "new");
      await s.transaction((tx) => tx.statusHistory.append(taken));
      await expectConflict(s.transaction((tx) => tx.statusHistory.appendMany([change(org.id, "case_c", "new", "in_progress"), taken])));
      expect(idsOf(await s.read((tx) => tx.statusHistory.listByRecord(org.id, "case", "case_c", { limit: 10 })))).toEqual([taken.id]);
    });
  });
}
