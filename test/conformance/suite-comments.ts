import { beforeEach, describe, expect, it } from "vitest";
import type { Comment, CommentParent, Organization } from "../../core/index.js";
import type { Fixtures } from "./fixtures.js";
import { shuffled } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined, idsOf } from "./suite-context.js";

/** A complete live comment on `parent`. */
function comment(f: Fixtures, organizationId: string, parent: CommentParent, overrides: Partial<Comment> = {}): Comment {
  return {
    id: f.ids.next("cmt"),
    organizationId,
    parentType: parent.kind,
    parentId: parent.id,
    body: "Looked at the proxy logs: nothing after 10:42.",
    createdAt: f.at(),
    updatedAt: f.at(),
    createdBy: null,
    editedAt: null,
    deletedAt: null,
    deletedBy: null,
    ...overrides,
  };
}

/** Comments: round trips, soft delete, tenant scoping, threads oldest first with keyset pages. */
export function describeComments(ctx: SuiteContext): void {
  describe("comments", () => {
    let org: Organization;
    let onCase: CommentParent;

    beforeEach(async () => {
      ({ org } = await ctx.seedOrganization());
      const parentCase = ctx.fixtures().caseRecord(org.id);
      await ctx.storage().transaction((tx) => tx.cases.insert(parentCase));
      onCase = { kind: "case", id: parentCase.id };
    });

    const find = (organizationId: string, id: string) => ctx.storage().read((tx) => tx.comments.findById(organizationId, id));
    const insert = (...records: Comment[]) =>
      ctx.storage().transaction(async (tx) => {
        for (const r of records) await tx.comments.insert(r);
      });
    const thread = (organizationId: string, parent: CommentParent, limit: number, afterId?: string) =>
      ctx.storage().read((tx) => tx.comments.listByParent(organizationId, parent, afterId === undefined ? { limit } : { limit, afterId }));

    it("insert then findById returns the record intact, with null for absent values", async () => {
      const f = ctx.fixtures();
      const bare = comment(f, org.id, onCase);
      f.clock.advance(1000);
      const full = comment(f, org.id, onCase, { body: `Multi-line\n“quoted” it's ☕ ${"x".repeat(9_000)}`, createdBy: "user_author", editedAt: f.at() });
      await insert(bare, full);
      const found = await find(org.id, bare.id);
      expect(found).toStrictEqual(bare);
      expectNoUndefined(found);
      expect(await find(org.id, full.id)).toStrictEqual(full);
    });

    it("findById is null for another organization, an unknown id and a soft-deleted comment", async () => {
      const f = ctx.fixtures();
      const record = comment(f, org.id, onCase);
      await insert(record);
      const { org: other } = await ctx.seedOrganization();
      expect(await find(other.id, record.id)).toBeNull();
      expect(await find(org.id, f.ids.next("cmt"))).toBeNull();
      const deleted = { ...record, deletedAt: f.at(), deletedBy: "user_x", updatedAt: f.at() };
      expect(await ctx.storage().transaction((tx) => tx.comments.update(deleted))).toBe(true);
      expect(await find(org.id, record.id)).toBeNull();
    });

    it("a taken id is a conflict, and the unit stays usable when the conflict is caught", async () => {
      const f = ctx.fixtures();
      const first = comment(f, org.id, onCase);
      await insert(first);
      await expectConflict(ctx.storage().transaction((tx) => tx.comments.insert({ ...comment(f, org.id, onCase), id: first.id })));
      const next = comment(f, org.id, onCase);
      await ctx.storage().transaction(async (tx) => {
        await tx.comments.insert({ ...next, id: first.id }).catch(() => undefined);
        await tx.comments.insert(next);
      });
      expect(await find(org.id, next.id)).toStrictEqual(next);
      expect(await find(org.id, first.id)).toStrictEqual(first);
    });

    it("update writes body, editedAt and updatedAt, and never the parent, author or creation", async () => {
      const f = ctx.fixtures();
      const record = comment(f, org.id, onCase, { createdBy: "user_author" });
      await insert(record);
      f.clock.advance(60_000);
      const edited = { ...record, body: "Correction: 10:47.", editedAt: f.at(), updatedAt: f.at() };
      expect(await ctx.storage().transaction((tx) => tx.comments.update({ ...edited, parentId: "case_elsewhere", parentType: "alert", createdBy: "user_other", createdAt: f.at() }))).toBe(true);
      expect(await find(org.id, record.id)).toStrictEqual(edited);
    });

    it("update is false, and writes nothing, for another organization's, an unknown or a deleted comment", async () => {
      const f = ctx.fixtures();
      const record = comment(f, org.id, onCase);
      await insert(record);
      const { org: other } = await ctx.seedOrganization();
      expect(await ctx.storage().transaction((tx) => tx.comments.update({ ...record, organizationId: other.id, body: "hijacked" }))).toBe(false);
      expect(await ctx.storage().transaction((tx) => tx.comments.update({ ...record, id: f.ids.next("cmt"), body: "ghost" }))).toBe(false);
      expect(await find(org.id, record.id)).toStrictEqual(record);
      await ctx.storage().transaction((tx) => tx.comments.update({ ...record, deletedAt: f.at(), deletedBy: "user_x" }));
      expect(await ctx.storage().transaction((tx) => tx.comments.update({ ...record, body: "back from the dead", deletedAt: null, deletedBy: null }))).toBe(false);
      expect(await find(org.id, record.id)).toBeNull();
    });

    it("a thread lists its parent's live comments oldest first, and keyset pages walk it exactly once", async () => {
      const f = ctx.fixtures();
      const records: Comment[] = [];
      for (let i = 0; i < 23; i++) {
        f.clock.advance(1000);
        records.push(comment(f, org.id, onCase, { body: `comment ${i}` }));
      }
      // Inserted out of order: the order comes from the ids, not from insertion.
      await insert(...shuffled(records));
      const deleted = [records[3]!, records[10]!, records[22]!];
      await ctx.storage().transaction(async (tx) => {
        for (const r of deleted) await tx.comments.update({ ...r, deletedAt: f.at(), deletedBy: "user_x" });
      });
      const live = records.filter((r) => !deleted.includes(r));

      expect(await thread(org.id, onCase, 100)).toStrictEqual(live);
      const seen: string[] = [];
      let afterId: string | undefined;
      for (;;) {
        const page = await thread(org.id, onCase, 5, afterId);
        expect(page.length).toBeLessThanOrEqual(5);
        seen.push(...idsOf(page));
        if (page.length < 5) break;
        afterId = page[page.length - 1]!.id;
      }
      expect(seen).toEqual(idsOf(live));
      // Continuing from a deleted comment's id still works (a cursor may outlive its comment).
      expect(idsOf(await thread(org.id, onCase, 2, records[10]!.id))).toEqual(idsOf([records[11]!, records[12]!]));
      expect(await thread(org.id, onCase, 0)).toEqual([]);
    });

    it("a thread holds only its own parent's comments: same id under another kind, another parent, another organization", async () => {
      const f = ctx.fixtures();
      const { org: other } = await ctx.seedOrganization();
      const mine = comment(f, org.id, onCase);
      const sameIdOtherKind = comment(f, org.id, { kind: "alert", id: onCase.id });
      const otherParent = comment(f, org.id, { kind: "case", id: f.ids.next("case") });
      const task = comment(f, org.id, { kind: "task", id: f.ids.next("task") });
      const otherTenant = comment(f, other.id, onCase);
      await insert(mine, sameIdOtherKind, otherParent, task, otherTenant);

      expect(await thread(org.id, onCase, 50)).toStrictEqual([mine]);
      expect(await thread(org.id, { kind: "alert", id: onCase.id }, 50)).toStrictEqual([sameIdOtherKind]);
      expect(await thread(org.id, { kind: "task", id: task.parentId }, 50)).toStrictEqual([task]);
      expect(await thread(other.id, onCase, 50)).toStrictEqual([otherTenant]);
      expect(await thread(other.id, { kind: "case", id: otherParent.parentId }, 50)).toEqual([]);
    });

    it("soft-deleted comments never come back through any read", async () => {
      const f = ctx.fixtures();
      const records = [comment(f, org.id, onCase), comment(f, org.id, onCase)];
      await insert(...records);
      await ctx.storage().transaction(async (tx) => {
        for (const r of records) expect(await tx.comments.update({ ...r, deletedAt: f.at(), deletedBy: "user_x" })).toBe(true);
      });
      expect(await thread(org.id, onCase, 50)).toEqual([]);
      expect(await thread(org.id, onCase, 50, "cmt_0")).toEqual([]);
      for (const r of records) expect(await find(org.id, r.id)).toBeNull();
    });

    it("writes are refused inside storage.read", async () => {
      const f = ctx.fixtures();
      await expect(ctx.storage().read((tx) => tx.comments.insert(comment(f, org.id, onCase)))).rejects.toThrow(/read-only/);
    });
  });
}
