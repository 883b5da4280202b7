import { beforeEach, describe, expect, it } from "vitest";
import type { AuditEventFilter, AuditItem, NewAuditEvent, Organization, Principal, StoredUser } from "../../core/index.js";
import { allScopes, createCaseKit } from "../../core/index.js";
import { readBack } from "./audit-reads.js";
import type { SuiteContext } from "./suite-context.js";
import { expectAppendOnlyRefusal, withoutAuditGuards } from "./suite-context.js";

const secret = "conformance-key-hash-secret-0123456789";
const day = 86_400_000;

/** The organization's admin as the core sees it (every scope, RED clearance). */
function principalOf(org: Organization, user: StoredUser): Principal {
  return { organizationId: org.id, userId: user.id, keyId: null, authenticatedBy: "host", role: "admin", tier: null, scopes: new Set(allScopes), tlpClearance: 4 };
}

const itemsOf = (count: number, caseOf: (i: number) => string): AuditItem[] =>
  Array.from({ length: count }, (_, i) => ({ resourceId: `task_${i}`, caseId: caseOf(i), tlp: 1, changes: [{ path: "status", before: "waiting", after: "done" }] }));

/**
 * Audit events (core/audit): chained per organization by the storage, a group taking one position
 * per record, read newest first or oldest first from any position with the filters, verified,
 * append-only in the database, pruned only behind a signed checkpoint.
 */
export function describeAuditEvents(ctx: SuiteContext): void {
  describe("audit events", () => {
    let org: Organization;
    let user: StoredUser;
    const kit = (retentionDays?: number) =>
      createCaseKit({
        ...(ctx.passwordHasher ? { passwordHasher: ctx.passwordHasher } : {}),
        storage: ctx.storage(),
        clock: ctx.fixtures().clock,
        config: { keyHashSecret: secret, ...(retentionDays !== undefined ? { auditRetentionDays: retentionDays } : {}) },
      });
    const append = (events: readonly NewAuditEvent[]) => ctx.storage().transaction((tx) => tx.audit.appendMany(events));
    const verify = () => kit().audit.verify(principalOf(org, user));

    beforeEach(async () => {
      ({ org, user } = await ctx.seedOrganization());
    });


    it("the storage chains each event after the head, a group taking one position per record; the head moves when the unit commits, not when it rolls back", async () => {
      const f = ctx.fixtures();
      const single = f.auditEntry(org.id);
      const group = { ...f.auditEntry(org.id, { action: "task.updated", target: { type: "task", id: "bulk_1" }, bulkRequestId: "bulk_1" }), items: itemsOf(3, () => "case_1") };
      const after = f.auditEntry(org.id);
      await append([single, group]);
      await ctx.storage().transaction((tx) => tx.audit.append(after));
      const rows = await ctx.storage().read((tx) => tx.audit.chain(org.id, 0, 10));
      expect(rows.map((row) => [row.id, row.seq])).toEqual([
        [single.id, 1],
        [group.id, 2],
        [after.id, 5],
      ]);
      expect(rows[1]!.prevHash).toBe(rows[0]!.hash);
      expect(rows[2]!.prevHash).toBe(rows[1]!.hash);
      expect(await ctx.storage().read((tx) => tx.audit.head(org.id))).toEqual({ seq: 5, hash: rows[2]!.hash });
      await expect(
        ctx.storage().transaction(async (tx) => {
          await tx.audit.append(f.auditEntry(org.id));
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await ctx.storage().read((tx) => tx.audit.head(org.id))).toEqual({ seq: 5, hash: rows[2]!.hash });
      expect(await verify()).toEqual({ ok: true, checked: 3, from: { seq: 0, kind: "start" } });
    });

    it("pageAfter reads oldest first from any position, inside a group too; list reads newest first; both filter", async () => {
      const f = ctx.fixtures();
      const events = [
        f.auditEntry(org.id, { action: "case.created", target: { type: "case", id: "case_1", caseId: "case_1" }, actor: { type: "user", id: user.id } }),
        { ...f.auditEntry(org.id, { action: "task.updated", target: { type: "task", id: "bulk_1" }, bulkRequestId: "bulk_1" }), items: itemsOf(4, (i) => (i % 2 ? "case_1" : "case_2")) },
        f.auditEntry(org.id, { action: "key.created", target: { type: "key", id: "key_1" }, actor: { type: "apiKey", id: "key_0", onBehalfOf: user.id } }),
        f.auditEntry(org.id, { action: "user.sign_in_failed", target: { type: "user", id: user.id }, outcome: "failure" }),
      ];
      await append(events);
      const all = readBack(events);
      const seqs = (list: { seq: number }[]) => list.map((e) => e.seq);
      expect(await ctx.storage().read((tx) => tx.audit.pageAfter(org.id, 0, 100))).toStrictEqual(all);
      expect(seqs(await ctx.storage().read((tx) => tx.audit.pageAfter(org.id, 3, 2)))).toEqual([4, 5]);
      expect(seqs(await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 3, beforeSeq: 5 })))).toEqual([4, 3, 2]);
      const filtered = async (filter: AuditEventFilter) => seqs(await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 100 }, filter)));
      expect(await filtered({ caseId: "case_1" })).toEqual([5, 3, 1]);
      expect(await filtered({ targetId: "task_2" })).toEqual([4]);
      expect(await filtered({ targetType: ["task"], caseId: "case_2" })).toEqual([4, 2]);
      expect(await filtered({ actorId: user.id })).toEqual([6, 1]);
      expect(await filtered({ actorType: ["apiKey"] })).toEqual([6]);
      expect(await filtered({ outcome: "failure" })).toEqual([7]);
      expect(await filtered({ action: ["key.created", "case.created"] })).toEqual([6, 1]);
      expect(await filtered({ q: "SIGN_IN" })).toEqual([7]);
      expect(await filtered({ q: "task_3" })).toEqual([5]);
      expect(await filtered({ from: all[2]!.at, to: all[2]!.at })).toEqual([]);
      expect(seqs(await ctx.storage().read((tx) => tx.audit.pageAfter(org.id, 1, 100, { caseId: "case_2" })))).toEqual([2, 4]);
    });

    it("the database refuses UPDATE of an event and DELETE of one not behind a checkpoint; checkpoints are never changed or deleted", async () => {
      const f = ctx.fixtures();
      const events = Array.from({ length: 4 }, () => f.auditEntry(org.id));
      await append(events);
      await expectAppendOnlyRefusal(ctx.raw(), "UPDATE audit_log SET action = ? WHERE organization_id = ? AND id = ?", ["case.deleted", org.id, events[1]!.id]);
      await expectAppendOnlyRefusal(ctx.raw(), "UPDATE audit_log SET hash = ? WHERE organization_id = ?", ["0", org.id]);
      await expectAppendOnlyRefusal(ctx.raw(), "DELETE FROM audit_log WHERE organization_id = ? AND id = ?", [org.id, events[0]!.id]);
      await expectAppendOnlyRefusal(ctx.raw(), "DELETE FROM audit_log WHERE organization_id = ?", [org.id]);
      expect(await verify()).toMatchObject({ ok: true, checked: 4 });
      ctx.fixtures().clock.advance(10 * day);
      expect(await kit(5).audit.prune()).toEqual({ checkpoints: 1, deleted: 4 });
      expect(await verify()).toMatchObject({ ok: true, checked: 1, from: { seq: 4, kind: "checkpoint" } });
      await expectAppendOnlyRefusal(ctx.raw(), "UPDATE audit_checkpoints SET seq = 1 WHERE organization_id = ?", [org.id]);
      await expectAppendOnlyRefusal(ctx.raw(), "DELETE FROM audit_checkpoints WHERE organization_id = ?", [org.id]);
    });

    it("a changed row is found by verify (hash), a removed one (sequence), a cut end (missing); another organization's chain stays green", async () => {
      const f = ctx.fixtures();
      const { org: other, user: otherUser } = await ctx.seedOrganization();
      const events = Array.from({ length: 5 }, (_, i) => f.auditEntry(org.id, { changes: [{ path: "title", before: `t${i}`, after: `u${i}` }] }));
      await append(events);
      await append([f.auditEntry(other.id), f.auditEntry(other.id)]);
      await withoutAuditGuards(ctx.raw(), () => ctx.raw().exec("UPDATE audit_log SET changes = ? WHERE organization_id = ? AND id = ?", ['[{"path":"title","before":"t2","after":"forged"}]', org.id, events[2]!.id]));
      expect(await verify()).toEqual({ ok: false, checked: 3, from: { seq: 0, kind: "start" }, firstBad: { id: events[2]!.id, seq: 3, reason: "hash" } });
      expect(await kit().audit.verify(principalOf(other, otherUser))).toEqual({ ok: true, checked: 2, from: { seq: 0, kind: "start" } });
      await withoutAuditGuards(ctx.raw(), () => ctx.raw().exec("DELETE FROM audit_log WHERE organization_id = ? AND id IN (?, ?)", [org.id, events[2]!.id, events[1]!.id]));
      expect(await verify()).toEqual({ ok: false, checked: 2, from: { seq: 0, kind: "start" }, firstBad: { id: events[3]!.id, seq: 4, reason: "sequence" } });
      const { org: third, user: thirdUser } = await ctx.seedOrganization();
      const theirs = Array.from({ length: 3 }, () => f.auditEntry(third.id));
      await append(theirs);
      await withoutAuditGuards(ctx.raw(), () => ctx.raw().exec("DELETE FROM audit_log WHERE organization_id = ? AND id = ?", [third.id, theirs[2]!.id]));
      expect(await kit().audit.verify(principalOf(third, thirdUser))).toEqual({ ok: false, checked: 2, from: { seq: 0, kind: "start" }, firstBad: { id: null, seq: 3, reason: "missing" } });
    });

    it("a group row's items are covered by its hash: one record's changes altered in the row are found", async () => {
      const f = ctx.fixtures();
      const group = { ...f.auditEntry(org.id, { target: { type: "task", id: "bulk_1" }, bulkRequestId: "bulk_1" }), items: itemsOf(3, () => "case_1") };
      await append([f.auditEntry(org.id), group]);
      const [row] = await ctx.storage().read((tx) => tx.audit.chain(org.id, 1, 1));
      expect(row!.items).toStrictEqual(group.items);
      // Stored by column: the shared value is written once; changing it changes every record.
      await withoutAuditGuards(ctx.raw(), () => ctx.raw().exec("UPDATE audit_log SET items = ? WHERE organization_id = ? AND id = ?", [JSON.stringify(group.items.map((item) => ({ ...item, resourceId: "task_forged" }))), org.id, group.id]));
      expect(await verify()).toEqual({ ok: false, checked: 2, from: { seq: 0, kind: "start" }, firstBad: { id: group.id, seq: 2, reason: "hash" } });
    });

    it("retention prunes behind a signed checkpoint: the rest verifies from it, a group is pruned whole, a forged checkpoint is found", async () => {
      const f = ctx.fixtures();
      const old = [f.auditEntry(org.id), { ...f.auditEntry(org.id, { target: { type: "task", id: "bulk_1" }, bulkRequestId: "bulk_1" }), items: itemsOf(2_500, () => "case_1") }];
      await append(old);
      f.clock.advance(40 * day);
      const recent = Array.from({ length: 3 }, () => f.auditEntry(org.id));
      await append(recent);
      // The organization keeps 30 days (its policy); the deployment would keep 100.
      await ctx.storage().transaction(async (tx) => {
        const stored = (await tx.organizations.findById(org.id))!;
        await tx.organizations.update({ ...stored, policy: { ...stored.policy, auditRetentionDays: 30 } });
      });
      expect(await kit(100).audit.prune()).toEqual({ checkpoints: 1, deleted: 2 });
      expect(await kit(100).audit.prune()).toEqual({ checkpoints: 0, deleted: 0 });
      const left = await ctx.storage().read((tx) => tx.audit.pageAfter(org.id, 0, 10));
      expect(left.map((e) => e.id).slice(0, 3)).toEqual(recent.map((e) => e.id));
      // The pruning is in the trail, by the system.
      expect(left.slice(3)).toMatchObject([{ seq: 2_505, action: "audit_log.pruned", actor: { type: "system", id: null }, changes: [{ path: "checkpoint.seq", before: null, after: 2_501 }] }]);
      const { checkpoint } = await ctx.storage().read((tx) => tx.audit.chainStart(org.id));
      expect(checkpoint).toMatchObject({ organizationId: org.id, seq: 2_501 });
      expect(await verify()).toEqual({ ok: true, checked: 4, from: { seq: 2_501, kind: "checkpoint" } });
      // A checkpoint written without the deployment's secret does not verify.
      f.clock.advance(day);
      await ctx.raw().exec("INSERT INTO audit_checkpoints (id, organization_id, seq, hash, at, signature) VALUES (?, ?, ?, ?, ?, ?)", [f.ids.next("ackp"), org.id, 2_503, "forged", f.at(), "00"]);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 2_503, reason: "checkpoint" } });
      // It admits deletes behind it (the triggers trust the table), but verification does not trust it.
      await ctx.raw().exec("DELETE FROM audit_log WHERE organization_id = ? AND seq <= ?", [org.id, 2_503]);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { reason: "checkpoint" } });
    });

    it("written by the services: a case, its task and a comment on the task share the case's trail, each change with its before and after", async () => {
      const k = kit();
      const principal = principalOf(org, user);
      const made = await k.cases.create(principal, { title: "Phish", severity: 2 });
      const task = await k.tasks.create(principal, made.id, { title: "Collect headers" });
      await k.comments.create(principal, { kind: "task", id: task.id }, { body: "Done." });
      await k.cases.update(principal, made.id, { title: "Phishing wave" });
      const trail = await k.audit.listForCase(principal, made.id, {});
      expect(trail.data.map((e) => [e.action, e.target.type, e.target.caseId])).toEqual([
        ["case.updated", "case", made.id],
        ["comment.created", "comment", made.id],
        ["task.created", "task", made.id],
        ["case.created", "case", made.id],
      ]);
      expect(trail.data[0]!.changes).toEqual([{ path: "title", before: "Phish", after: "Phishing wave" }]);
      expect(trail.data[0]!.actor).toEqual({ type: "user", id: user.id });
      expect(await verify()).toMatchObject({ ok: true });
    });
  });
}
