import { beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode, Principal, Scope } from "../../core/index.js";
import { addOrganization, addUser, makeTestKit, principalFor } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; paths: string[] }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; errors?: { path: string }[] };
    return { code: e.code, paths: (e.errors ?? []).map((x) => x.path) };
  }
  throw new Error("expected a failure");
}

describe("case service", () => {
  let t: TestKit;
  let admin: Principal;
  beforeEach(async () => {
    t = await makeTestKit();
    admin = t.admin;
  });

  it("creates a case with the spec's defaults, a number, timestamps, an audit entry and an event", async () => {
    const created = await t.kit.cases.create(admin, { title: "Phishing wave", severity: 3 });
    expect(created).toMatchObject({
      organizationId: t.organizationId,
      number: 1,
      title: "Phishing wave",
      severity: 3,
      tlp: 2,
      pap: 2,
      statusValue: "new",
      description: null,
      assigneeId: null,
      tags: [],
      teams: [],
      organizations: [],
      customFields: {},
      closedAt: null,
      createdAt: "2026-03-01T12:00:00.000Z",
      updatedAt: "2026-03-01T12:00:00.000Z",
      createdBy: admin.userId,
    });
    expect(created.id).toMatch(/^case_[0-9a-z]{26}$/);
    expect(await t.kit.cases.get(admin, created.id)).toEqual(created);
    expect((await t.kit.cases.create(admin, { title: "Second", severity: 1 })).number).toBe(2);

    const [audit, events] = await t.kit.storage.read(async (tx) => [
      await tx.audit.list(t.organizationId, { limit: 10 }),
      await tx.events.list(t.organizationId, { limit: 10 }),
    ] as const);
    expect(audit.map((a) => a.action)).toEqual(["case.created", "case.created"]);
    expect(audit[1]).toMatchObject({ target: { type: "case", id: created.id, caseId: created.id }, actor: { type: "apiKey", id: admin.keyId, onBehalfOf: admin.userId }, outcome: "success", tlp: 2 });
    expect(events[1]).toMatchObject({ name: "case.created", resourceId: created.id, tlp: 2, payload: { id: created.id, title: "Phishing wave" } });
  });

  it("enforces every limit of spec 2.1 and changes nothing on bad input", async () => {
    const bad: [unknown, string][] = [
      [{ severity: 2 }, "title"],
      [{ title: "", severity: 2 }, "title"],
      [{ title: "x".repeat(501), severity: 2 }, "title"],
      [{ title: "t", severity: 0 }, "severity"],
      [{ title: "t", severity: 5 }, "severity"],
      [{ title: "t", severity: 2.5 }, "severity"],
      [{ title: "t", severity: "3" }, "severity"],
      [{ title: "t", severity: 2, tlp: -1 }, "tlp"],
      [{ title: "t", severity: 2, tlp: 5 }, "tlp"],
      [{ title: "t", severity: 2, pap: -1 }, "pap"],
      [{ title: "t", severity: 2, pap: 4 }, "pap"],
      [{ title: "t", severity: 2, organizationId: "org_x" }, "organizationId"],
      [{ title: "t", severity: 2, tags: ["plain string"] }, "tags.0"],
      [{ title: "t", severity: 2, customFields: [] }, "customFields"],
      [null, ""],
    ];
    for (const [input, path] of bad) {
      const { code, paths } = await failure(t.kit.cases.create(admin, input));
      expect(code, JSON.stringify(input)).toBe("validation_failed");
      expect(paths, JSON.stringify(input)).toContain(path);
    }
    // No severity and no case type to default it: its own code, the schema having made it optional.
    expect(await failure(t.kit.cases.create(admin, { title: "t" }))).toMatchObject({ code: "severity_required", paths: ["severity"] });
    // The lifecycle decides statuses (core/lifecycles): a case never starts closed, nor in a status it lacks.
    expect((await failure(t.kit.cases.create(admin, { title: "t", severity: 2, statusValue: "closed" }))).code).toBe("invalid_transition");
    expect(await failure(t.kit.cases.create(admin, { title: "t", severity: 2, statusValue: "archived" }))).toMatchObject({ code: "unknown_status", paths: ["statusValue"] });
    expect((await t.kit.cases.list(admin, {})).data).toEqual([]);
    expect((await t.kit.cases.create(admin, { title: "x".repeat(500), severity: 4, tlp: 0, pap: 3 })).number).toBe(1);
  });

  it("requires cases:write to create and cases:read to read", async () => {
    const readOnly = principalFor(admin, { scopes: new Set<Scope>(["cases:read"]) });
    const writeOnly = principalFor(admin, { scopes: new Set<Scope>(["cases:write"]) });
    expect((await failure(t.kit.cases.create(readOnly, { title: "t", severity: 1 }))).code).toBe("missing_scope");
    const created = await t.kit.cases.create(writeOnly, { title: "t", severity: 1 });
    expect((await failure(t.kit.cases.get(writeOnly, created.id))).code).toBe("missing_scope");
    expect((await failure(t.kit.cases.list(writeOnly, {}))).code).toBe("missing_scope");
    expect((await failure(t.kit.cases.update(readOnly, created.id, { title: "u" }))).code).toBe("missing_scope");
  });

  it("keeps tenants apart: another organization's case is not_found, exactly like a missing one", async () => {
    const other = await addOrganization(t.kit, "Other Corp");
    const theirs = await t.kit.cases.create(other.admin, { title: "Theirs", severity: 2 });
    expect((await failure(t.kit.cases.get(admin, theirs.id))).code).toBe("not_found");
    expect((await failure(t.kit.cases.get(admin, "case_00000000000000000000000000"))).code).toBe("not_found");
    expect((await failure(t.kit.cases.update(admin, theirs.id, { title: "mine now" }))).code).toBe("not_found");
    expect((await t.kit.cases.list(admin, {})).data).toEqual([]);
    expect((await t.kit.cases.create(admin, { title: "Ours", severity: 2 })).number).toBe(1);
  });

  it("enforces TLP clearance on create, read, update and lists", async () => {
    const amber = principalFor(admin, { tlpClearance: 2 });
    const red = await t.kit.cases.create(admin, { title: "Red", severity: 2, tlp: 4 });
    const green = await t.kit.cases.create(admin, { title: "Green", severity: 2, tlp: 1 });
    expect((await failure(t.kit.cases.get(amber, red.id))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.cases.update(amber, red.id, { title: "x" }))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.cases.create(amber, { title: "t", severity: 1, tlp: 3 }))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.cases.update(amber, green.id, { tlp: 3 }))).code).toBe("tlp_restricted");
    expect((await t.kit.cases.list(amber, {})).data.map((c) => c.id)).toEqual([green.id]);
  });

  it("follows the documented lifecycle; only admins and the assignee reopen", async () => {
    const analystUser = await addUser(t.kit, t.organizationId, { role: "analyst" });
    const analyst = principalFor(admin, { userId: analystUser.id, role: "analyst" });
    const created = await t.kit.cases.create(admin, { title: "t", severity: 1 });
    expect((await t.kit.cases.update(analyst, created.id, { statusValue: "in_progress" })).statusValue).toBe("in_progress");
    t.clock.advance(60_000);
    const closed = await t.kit.cases.update(analyst, created.id, { statusValue: "closed" });
    expect(closed.closedAt).toBe("2026-03-01T12:01:00.000Z");
    expect((await failure(t.kit.cases.update(analyst, created.id, { statusValue: "on_hold" }))).code).toBe("invalid_transition");
    expect((await failure(t.kit.cases.update(analyst, created.id, { statusValue: "in_progress" }))).code).toBe("invalid_transition");
    const reopened = await t.kit.cases.update(admin, created.id, { statusValue: "in_progress" });
    expect(reopened.closedAt).toBeNull();

    const assigned = await t.kit.cases.create(admin, { title: "mine", severity: 1, assigneeId: analystUser.id, statusValue: "in_progress" });
    await t.kit.cases.update(analyst, assigned.id, { statusValue: "resolved" });
    expect((await t.kit.cases.update(analyst, assigned.id, { statusValue: "in_progress" })).statusValue).toBe("in_progress");
  });

  it("checks references: the assignee must be an active user of the organization", async () => {
    const other = await addOrganization(t.kit, "Other Corp");
    const disabled = await addUser(t.kit, t.organizationId, { status: "disabled" });
    expect((await failure(t.kit.cases.create(admin, { title: "t", severity: 1, assigneeId: other.admin.userId }))).paths).toEqual(["assigneeId"]);
    expect((await failure(t.kit.cases.create(admin, { title: "t", severity: 1, assigneeId: disabled.id }))).paths).toEqual(["assigneeId"]);
    await t.kit.organizations.updatePolicy(admin, { allowCaseSharing: true });
    await t.kit.organizations.updatePolicy(other.admin, { allowCaseSharing: true });
    expect((await failure(t.kit.cases.create(admin, { title: "t", severity: 1, organizations: ["org_00000000000000000000000000"] }))).paths).toEqual(["organizations"]);
    expect((await failure(t.kit.cases.create(admin, { title: "t", severity: 1, organizations: [t.organizationId] }))).paths).toEqual(["organizations"]);
    const shared = await t.kit.cases.create(admin, { title: "t", severity: 1, organizations: [other.organizationId] });
    expect(shared.organizations).toEqual([other.organizationId]);
  });

  it("updates only the given fields, clears with null, and audits the difference", async () => {
    const created = await t.kit.cases.create(admin, { title: "t", severity: 1, description: "d", source: "siem" });
    t.clock.advance(1000);
    const updated = await t.kit.cases.update(admin, created.id, { title: "renamed", description: null });
    expect(updated).toMatchObject({ title: "renamed", description: null, source: "siem", severity: 1, updatedAt: "2026-03-01T12:00:01.000Z", createdAt: created.createdAt });
    expect((await failure(t.kit.cases.update(admin, created.id, {}))).code).toBe("validation_failed");
    expect((await failure(t.kit.cases.update(admin, created.id, { number: 9 }))).code).toBe("validation_failed");
    const audit = await t.kit.storage.read((tx) => tx.audit.list(t.organizationId, { limit: 1 }));
    expect(audit[0]?.changes).toEqual([
      { path: "title", before: "t", after: "renamed" },
      { path: "description", before: "d", after: null },
    ]);
  });

  it("lists newest first with filters and cursor pages that neither skip nor repeat", async () => {
    const made = [];
    for (let i = 0; i < 23; i++) {
      made.push(await t.kit.cases.create(admin, { title: `c${i}`, severity: (i % 4) + 1, source: i % 2 ? "edr" : "siem", tags: [{ name: i % 3 ? "x" : "phish" }] }));
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await t.kit.cases.list(admin, { limit: "5", ...(cursor ? { cursor } : {}) });
      seen.push(...page.data.map((c) => c.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(made.map((c) => c.id).reverse());

    expect((await t.kit.cases.list(admin, { severity: ["3", "4"] })).data.every((c) => c.severity >= 3)).toBe(true);
    expect((await t.kit.cases.list(admin, { source: "edr" })).data).toHaveLength(11);
    expect((await t.kit.cases.list(admin, { tag: "phish" })).data).toHaveLength(8);
    expect((await failure(t.kit.cases.list(admin, { colour: "red" }))).code).toBe("validation_failed");
    expect((await failure(t.kit.cases.list(admin, { cursor: "not-a-cursor" }))).paths).toEqual(["cursor"]);
    expect((await failure(t.kit.cases.list(admin, { limit: "501" }))).paths).toEqual(["limit"]);
  });
});

describe("audit diffs", () => {
  it("do not record a change when only the key order of a JSON value differs", async () => {
    const t = await makeTestKit();
    const created = await t.kit.cases.create(t.admin, { title: "t", severity: 1, customFields: { a: 1, b: { c: 2, d: 3 } } });
    await t.kit.cases.update(t.admin, created.id, { customFields: { b: { d: 3, c: 2 }, a: 1 }, title: "u" });
    const [entry] = await t.kit.storage.read((tx) => tx.audit.list(t.organizationId, { limit: 1 }));
    expect(entry?.changes).toEqual([{ path: "title", before: "t", after: "u" }]);
  });
});
