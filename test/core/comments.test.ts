import { beforeEach, describe, expect, it } from "vitest";
import type { Alert } from "../../core/alerts/types.js";
import type { CommentView, ErrorCode, Principal, Scope } from "../../core/index.js";
import { maxCommentLength } from "../../core/index.js";
import type { TestKit } from "../helpers/kit.js";
import { addAlert } from "../helpers/parents.js";
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

const caseParent = (id: string) => ({ kind: "case" as const, id });

describe("comments on cases", () => {
  let t: TestKit;
  let caseId: string;
  /** Two analysts of the organization with every data scope, and the admin. */
  let author: Principal;
  let colleague: Principal;

  const analyst = async (): Promise<Principal> => {
    const user = await addUser(t.kit, t.organizationId, { role: "analyst" });
    return principalFor(t.admin, { userId: user.id, keyId: null, role: "analyst" });
  };
  const events = () => t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 100 }));
  const auditLog = () => t.kit.storage.read((tx) => tx.audit.list(t.organizationId, { limit: 100 }));
  const tlpLog = (resourceType: "comment" | "case" = "comment") =>
    t.kit.storage.read((tx) => tx.tlpAudit.list(t.organizationId, { resourceType: [resourceType] }, { limit: 500 }));
  const stored = (id: string) => t.kit.storage.read((tx) => tx.comments.findById(t.organizationId, id));

  beforeEach(async () => {
    t = await makeTestKit();
    caseId = (await t.kit.cases.create(t.admin, { title: "Phishing wave", severity: 3, tlp: 2 })).id;
    author = await analyst();
    colleague = await analyst();
  });

  describe("create", () => {
    it("stores the trimmed body with the caller as author and answers it with the case's marking", async () => {
      const created = await t.kit.comments.create(author, caseParent(caseId), { body: "  Blocked the sender domain.\n" });
      expect(created).toMatchObject({
        organizationId: t.organizationId,
        parentType: "case",
        parentId: caseId,
        body: "Blocked the sender domain.",
        createdBy: author.userId,
        tlp: 2,
        editedAt: null,
        deletedAt: null,
        deletedBy: null,
      });
      expect(created.id).toMatch(/^cmt_[0-9a-z]{26}$/);
      const { tlp: _tlp, ...record } = created;
      expect(await stored(created.id)).toEqual(record);
    });

    it("records comment.created with its audit entry and a TLP edit entry", async () => {
      const created = await t.kit.comments.create(author, caseParent(caseId), { body: "Noted." });
      const event = (await events()).find((e) => e.name === "comment.created");
      expect(event).toMatchObject({ resourceType: "comment", resourceId: created.id, tlp: 2, payload: { body: "Noted.", parentId: caseId } });
      expect((await auditLog()).find((a) => a.action === "comment.created")).toMatchObject({ target: { type: "comment", id: created.id, caseId }, actor: { id: author.keyId ?? author.userId }, changes: [] });
      expect(await tlpLog()).toEqual([expect.objectContaining({ resourceId: created.id, action: "edit", tlpBefore: null, tlpAfter: 2, outcome: "allowed" })]);
    });

    it.each([
      ["no body", {}, "body"],
      ["an empty body", { body: "" }, "body"],
      ["a body of white space only", { body: " \n\t " }, "body"],
      ["a body one character too long", { body: "x".repeat(maxCommentLength + 1) }, "body"],
      ["a body that is not text", { body: 42 }, "body"],
      ["an unknown field", { body: "ok", createdBy: "user_x" }, "createdBy"],
      ["a body that is not an object", "just text", ""],
    ])("refuses %s with validation_failed and writes nothing", async (_name, input, path) => {
      const before = await events();
      expect(await failure(t.kit.comments.create(author, caseParent(caseId), input))).toEqual({ code: "validation_failed", paths: [path] });
      expect(await events()).toEqual(before);
      expect((await t.kit.comments.listOf(author, caseParent(caseId), {})).data).toEqual([]);
    });

    it("accepts exactly the longest body, counted after trimming", async () => {
      const created = await t.kit.comments.create(author, caseParent(caseId), { body: ` ${"x".repeat(maxCommentLength)} ` });
      expect(created.body).toHaveLength(maxCommentLength);
    });

    it("needs cases:write; cases:read or another parent's write scope is not enough", async () => {
      for (const scopes of [["cases:read"], ["alerts:write", "tasks:write", "observables:write"]] as Scope[][]) {
        const caller = principalFor(author, { scopes: new Set(scopes) });
        expect((await failure(t.kit.comments.create(caller, caseParent(caseId), { body: "x" }))).code).toBe("missing_scope");
      }
    });

    it("answers not_found for another organization's case exactly as for a case that never existed", async () => {
      const other = await addOrganization(t.kit, "Other SOC");
      const foreign = await failure(t.kit.comments.create(other.admin, caseParent(caseId), { body: "x" }));
      const unknown = await failure(t.kit.comments.create(other.admin, caseParent("case_01kaaaaaaaaaaaaaaaaaaaaaaa"), { body: "x" }));
      expect(foreign).toEqual({ code: "not_found", paths: [] });
      expect(unknown).toEqual(foreign);
      expect((await t.kit.comments.listOf(author, caseParent(caseId), {})).data).toEqual([]);
    });
  });

  describe("TLP: a comment has its case's marking for every check", () => {
    let red: string;
    let onRed: CommentView;
    let green: Principal;

    beforeEach(async () => {
      red = (await t.kit.cases.create(t.admin, { title: "Insider", severity: 4, tlp: 4 })).id;
      onRed = await t.kit.comments.create(author, caseParent(red), { body: "Restricted detail." });
      green = principalFor(author, { tlpClearance: 1 });
    });

    it("a caller below the case's marking can neither read, add, edit nor delete its comments", async () => {
      expect((await failure(t.kit.comments.create(green, caseParent(red), { body: "x" }))).code).toBe("tlp_restricted");
      expect((await failure(t.kit.comments.listOf(green, caseParent(red), {}))).code).toBe("tlp_restricted");
      expect((await failure(t.kit.comments.get(green, onRed.id))).code).toBe("tlp_restricted");
      expect((await failure(t.kit.comments.update(green, onRed.id, { body: "changed" }))).code).toBe("tlp_restricted");
      expect((await failure(t.kit.comments.delete(green, onRed.id))).code).toBe("tlp_restricted");
      expect(await stored(onRed.id)).toMatchObject({ body: "Restricted detail.", deletedAt: null });
      expect((await t.kit.comments.listOf(author, caseParent(red), {})).data.map((c) => c.id)).toEqual([onRed.id]);
    });

    it("refusals are audited as denied: against the case on its thread, against the comment by id", async () => {
      await failure(t.kit.comments.listOf(green, caseParent(red), {}));
      await failure(t.kit.comments.update(green, onRed.id, { body: "changed" }));
      expect((await tlpLog("case")).filter((e) => e.outcome === "denied")).toEqual([expect.objectContaining({ resourceId: red, action: "view", tlpBefore: 4 })]);
      expect((await tlpLog()).filter((e) => e.outcome === "denied")).toEqual([expect.objectContaining({ resourceId: onRed.id, action: "edit", tlpBefore: 4, actorUserId: author.userId })]);
    });

    it("the comment follows its case: lowering the case's marking opens its comments, raising it closes them", async () => {
      await t.kit.cases.update(t.admin, red, { tlp: 1 });
      expect((await t.kit.comments.get(green, onRed.id)).tlp).toBe(1);
      await t.kit.cases.update(t.admin, red, { tlp: 3 });
      expect((await failure(t.kit.comments.get(green, onRed.id))).code).toBe("tlp_restricted");
      expect((await t.kit.comments.get(author, onRed.id)).tlp).toBe(3);
    });

    it("events carry the inherited marking, so webhook TLP filters apply to comments too", async () => {
      await t.kit.comments.update(author, onRed.id, { body: "Edited." });
      expect((await events()).filter((e) => e.resourceType === "comment").map((e) => [e.name, e.tlp])).toEqual([
        ["comment.updated", 4],
        ["comment.created", 4],
      ]);
    });

    it("reading an AMBER+STRICT or RED thread writes a view entry per comment seen", async () => {
      await t.kit.comments.create(author, caseParent(red), { body: "Second." });
      const before = (await tlpLog()).filter((e) => e.action === "view").length;
      await t.kit.comments.listOf(author, caseParent(red), {});
      expect((await tlpLog()).filter((e) => e.action === "view").length).toBe(before + 2);
      await t.kit.comments.listOf(author, caseParent(caseId), {});
      expect((await tlpLog()).filter((e) => e.action === "view").length).toBe(before + 2);
    });
  });

  describe("edit and delete: the author or an admin", () => {
    let mine: CommentView;

    beforeEach(async () => {
      mine = await t.kit.comments.create(author, caseParent(caseId), { body: "First draft." });
    });

    it("the author edits: the body changes, editedAt and updatedAt are set, and comment.updated records the diff", async () => {
      t.clock.advance(60_000);
      const edited = await t.kit.comments.update(author, mine.id, { body: " Final text. " });
      expect(edited).toMatchObject({ id: mine.id, body: "Final text.", editedAt: t.clock.now().toISOString(), updatedAt: t.clock.now().toISOString(), createdAt: mine.createdAt, createdBy: author.userId });
      expect(await t.kit.comments.get(author, mine.id)).toEqual(edited);
      const entry = (await auditLog()).find((a) => a.action === "comment.updated");
      expect(entry?.changes).toEqual([
        { path: "body", before: "First draft.", after: "Final text." },
        { path: "editedAt", before: null, after: edited.editedAt },
      ]);
      expect((await events()).find((e) => e.name === "comment.updated")?.payload).toMatchObject({ body: "Final text." });
    });

    it("the same body again is a no-op: no editedAt, no event", async () => {
      const before = await events();
      expect(await t.kit.comments.update(author, mine.id, { body: "First draft." })).toEqual(mine);
      expect(await events()).toEqual(before);
    });

    it("another analyst may neither edit nor delete it (not_author), and nothing changes", async () => {
      const before = await events();
      expect((await failure(t.kit.comments.update(colleague, mine.id, { body: "Mine now." }))).code).toBe("not_author");
      expect((await failure(t.kit.comments.delete(colleague, mine.id))).code).toBe("not_author");
      expect(await stored(mine.id)).toMatchObject({ body: "First draft.", deletedAt: null, editedAt: null });
      expect(await events()).toEqual(before);
    });

    it("an admin moderates: edits and deletes someone else's comment", async () => {
      expect((await t.kit.comments.update(t.admin, mine.id, { body: "[redacted]" })).body).toBe("[redacted]");
      const deleted = await t.kit.comments.delete(t.admin, mine.id);
      expect(deleted).toMatchObject({ deletedBy: t.admin.userId, body: "[redacted]" });
    });

    it("a comment without a known author can be changed by an admin only", async () => {
      // E.g. written by an import: the author column is fixed at insert, so insert one that way.
      const orphan = { ...(await stored(mine.id))!, id: t.kit.deps.ids.next("cmt"), createdBy: null };
      await t.kit.storage.transaction((tx) => tx.comments.insert(orphan));
      expect((await failure(t.kit.comments.delete(author, orphan.id))).code).toBe("not_author");
      expect((await t.kit.comments.delete(t.admin, orphan.id)).deletedAt).not.toBeNull();
    });

    it("the author deletes: soft delete with comment.deleted, then 404 on every read and out of the thread", async () => {
      t.clock.advance(1000);
      const deleted = await t.kit.comments.delete(author, mine.id);
      expect(deleted).toMatchObject({ id: mine.id, deletedAt: t.clock.now().toISOString(), deletedBy: author.userId, body: "First draft." });
      expect((await events()).find((e) => e.name === "comment.deleted")).toMatchObject({ resourceId: mine.id, tlp: 2 });
      expect((await auditLog()).find((a) => a.action === "comment.deleted")?.changes).toContainEqual({ path: "deletedBy", before: null, after: author.userId });
      expect((await tlpLog()).find((e) => e.action === "delete")).toMatchObject({ resourceId: mine.id, outcome: "allowed" });
      expect((await failure(t.kit.comments.get(author, mine.id))).code).toBe("not_found");
      expect((await failure(t.kit.comments.update(author, mine.id, { body: "again" }))).code).toBe("not_found");
      expect((await failure(t.kit.comments.delete(author, mine.id))).code).toBe("not_found");
      expect((await t.kit.comments.listOf(author, caseParent(caseId), {})).data).toEqual([]);
    });

    it("a bad edit body is validation_failed and changes nothing", async () => {
      for (const input of [{}, { body: "   " }, { body: "x", parentId: caseId }]) {
        expect((await failure(t.kit.comments.update(author, mine.id, input))).code).toBe("validation_failed");
      }
      expect(await stored(mine.id)).toMatchObject({ body: "First draft.", editedAt: null });
    });

    it("by id, a caller needs the parent's scope: none of the comment scopes stops first, another parent's is not enough", async () => {
      const none = principalFor(author, { scopes: new Set<Scope>(["observables:write", "observables:read", "users:read"]) });
      expect((await failure(t.kit.comments.get(none, "cmt_01kaaaaaaaaaaaaaaaaaaaaaaa"))).code).toBe("missing_scope");
      expect((await failure(t.kit.comments.update(none, mine.id, { body: "x" }))).code).toBe("missing_scope");
      const alertsOnly = principalFor(author, { scopes: new Set<Scope>(["alerts:read", "alerts:write"]) });
      expect((await failure(t.kit.comments.get(alertsOnly, mine.id))).code).toBe("missing_scope");
      expect((await failure(t.kit.comments.update(alertsOnly, mine.id, { body: "x" }))).code).toBe("missing_scope");
      expect((await failure(t.kit.comments.delete(alertsOnly, mine.id))).code).toBe("missing_scope");
      const readOnly = principalFor(author, { scopes: new Set<Scope>(["cases:read"]) });
      expect((await t.kit.comments.get(readOnly, mine.id)).id).toBe(mine.id);
      expect((await failure(t.kit.comments.delete(readOnly, mine.id))).code).toBe("missing_scope");
    });

    it("another organization's admin gets not_found, as for an id that never existed", async () => {
      const other = await addOrganization(t.kit, "Other SOC");
      for (const id of [mine.id, "cmt_01kaaaaaaaaaaaaaaaaaaaaaaa"]) {
        expect((await failure(t.kit.comments.get(other.admin, id))).code).toBe("not_found");
        expect((await failure(t.kit.comments.update(other.admin, id, { body: "x" }))).code).toBe("not_found");
        expect((await failure(t.kit.comments.delete(other.admin, id))).code).toBe("not_found");
      }
      expect(await stored(mine.id)).toMatchObject({ body: "First draft.", deletedAt: null });
    });
  });

  describe("threads", () => {
    it("list oldest first, in pages whose cursors walk the whole thread once", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        t.clock.advance(1000);
        ids.push((await t.kit.comments.create(i % 2 ? author : colleague, caseParent(caseId), { body: `#${i}` })).id);
      }
      await t.kit.comments.delete(author, ids[3]!);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await t.kit.comments.listOf(author, caseParent(caseId), cursor ? { limit: "2", cursor } : { limit: "2" });
        expect(page.data.length).toBeLessThanOrEqual(2);
        expect(page.data.every((c) => c.tlp === 2)).toBe(true);
        seen.push(...page.data.map((c) => c.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(ids.filter((_, i) => i !== 3));
    });

    it("refuses a bad limit, a forged cursor and unknown parameters", async () => {
      for (const query of [{ limit: "0" }, { limit: "501" }, { cursor: "bm90LWFuLWlk" }, { order: "desc" }]) {
        expect((await failure(t.kit.comments.listOf(author, caseParent(caseId), query))).code).toBe("validation_failed");
      }
    });

    it("needs cases:read and a case of the caller's own organization", async () => {
      const caller = principalFor(author, { scopes: new Set<Scope>(["cases:write", "alerts:read", "tasks:read"]) });
      expect((await failure(t.kit.comments.listOf(caller, caseParent(caseId), {}))).code).toBe("missing_scope");
      const other = await addOrganization(t.kit, "Other SOC");
      expect((await failure(t.kit.comments.listOf(other.admin, caseParent(caseId), {}))).code).toBe("not_found");
    });
  });
});

describe("comments on alerts", () => {
  let t: TestKit;
  let alert: Alert;
  const onAlert = () => ({ kind: "alert" as const, id: alert.id });

  beforeEach(async () => {
    t = await makeTestKit();
    alert = await addAlert(t, { tlp: 3 });
  });

  it("work like a case's: alerts:write to add, alerts:read to list, the alert's marking inherited", async () => {
    const created = await t.kit.comments.create(t.admin, onAlert(), { body: "False positive: VPN egress." });
    expect(created).toMatchObject({ parentType: "alert", parentId: alert.id, tlp: 3 });
    expect((await t.kit.comments.listOf(t.admin, onAlert(), {})).data.map((c) => c.id)).toEqual([created.id]);
    const casesOnly = principalFor(t.admin, { scopes: new Set<Scope>(["cases:read", "cases:write"]) });
    expect((await failure(t.kit.comments.create(casesOnly, onAlert(), { body: "x" }))).code).toBe("missing_scope");
    expect((await failure(t.kit.comments.listOf(casesOnly, onAlert(), {}))).code).toBe("missing_scope");
    expect((await failure(t.kit.comments.get(casesOnly, created.id))).code).toBe("missing_scope");
    const alertsReader = principalFor(t.admin, { scopes: new Set<Scope>(["alerts:read"]) });
    expect((await t.kit.comments.get(alertsReader, created.id)).id).toBe(created.id);
    expect((await failure(t.kit.comments.update(alertsReader, created.id, { body: "x" }))).code).toBe("missing_scope");
    const amber = principalFor(t.admin, { tlpClearance: 2 });
    expect((await failure(t.kit.comments.get(amber, created.id))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.comments.listOf(amber, onAlert(), {}))).code).toBe("tlp_restricted");
  });

  it("a soft-deleted alert hides its comments: 404 on its thread and on each comment, back once restored", async () => {
    const created = await t.kit.comments.create(t.admin, onAlert(), { body: "Escalating." });
    const deleted = { ...alert, deletedAt: t.kit.clock.now().toISOString(), deletedBy: t.admin.userId };
    await t.kit.storage.transaction((tx) => tx.alerts.update(deleted));
    expect((await failure(t.kit.comments.listOf(t.admin, onAlert(), {}))).code).toBe("not_found");
    expect((await failure(t.kit.comments.create(t.admin, onAlert(), { body: "x" }))).code).toBe("not_found");
    expect((await failure(t.kit.comments.get(t.admin, created.id))).code).toBe("not_found");
    expect((await failure(t.kit.comments.update(t.admin, created.id, { body: "x" }))).code).toBe("not_found");
    expect((await failure(t.kit.comments.delete(t.admin, created.id))).code).toBe("not_found");
    await t.kit.storage.transaction((tx) => tx.alerts.update(alert));
    expect((await t.kit.comments.get(t.admin, created.id)).body).toBe("Escalating.");
  });

  it("another organization's alert is not_found, as an alert that never existed", async () => {
    const other = await addOrganization(t.kit, "Other SOC");
    expect((await failure(t.kit.comments.create(other.admin, onAlert(), { body: "x" }))).code).toBe("not_found");
    expect((await failure(t.kit.comments.listOf(other.admin, onAlert(), {}))).code).toBe("not_found");
  });
});
