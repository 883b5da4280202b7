import { beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode, Scope } from "../../core/index.js";
import { addOrganization, makeTestKit, principalFor } from "../helpers/kit.js";
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

describe("teams", () => {
  let t: TestKit;
  beforeEach(async () => {
    t = await makeTestKit();
  });

  it("creates teams in the caller's organization only, with escalation inside it and no cycles", async () => {
    const l2 = await t.kit.teams.create(t.admin, { name: "L2", tier: "L2", timezone: "Europe/Paris" });
    const l1 = await t.kit.teams.create(t.admin, { name: "L1", tier: "L1", escalationTeamId: l2.id, organizationId: t.organizationId });
    expect(l1).toMatchObject({ organizationId: t.organizationId, escalationTeamId: l2.id, email: null });
    expect((await failure(t.kit.teams.update(t.admin, l2.id, { escalationTeamId: l1.id }))).paths).toEqual(["escalationTeamId"]);
    expect((await failure(t.kit.teams.update(t.admin, l2.id, { escalationTeamId: l2.id }))).paths).toEqual(["escalationTeamId"]);
    const other = await addOrganization(t.kit, "Other");
    const theirs = await t.kit.teams.create(other.admin, { name: "Theirs" });
    expect((await failure(t.kit.teams.create(t.admin, { name: "X", escalationTeamId: theirs.id }))).paths).toEqual(["escalationTeamId"]);
    expect((await failure(t.kit.teams.create(t.admin, { name: "X", organizationId: other.organizationId }))).code).toBe("organization_restricted");
    expect((await failure(t.kit.teams.create(t.admin, { name: "L1" }))).code).toBe("conflict");
    expect((await failure(t.kit.teams.create(t.admin, { name: "X", timezone: "Mars/Olympus" }))).paths).toEqual(["timezone"]);
    expect((await failure(t.kit.teams.get(t.admin, theirs.id))).code).toBe("not_found");
    expect((await t.kit.teams.list(t.admin, { tier: "L1" })).data.map((x) => x.id)).toEqual([l1.id]);
    const writer = principalFor(t.admin, { scopes: new Set<Scope>(["users:read"]) });
    expect((await failure(t.kit.teams.create(writer, { name: "Y" }))).code).toBe("missing_scope");
  });

  it("case team references must name teams of the organization", async () => {
    const team = await t.kit.teams.create(t.admin, { name: "IR" });
    const created = await t.kit.cases.create(t.admin, { title: "t", severity: 1, teams: [{ id: team.id }] });
    expect(created.teams).toEqual([{ id: team.id }]);
    const other = await addOrganization(t.kit, "Other");
    const theirs = await t.kit.teams.create(other.admin, { name: "IR" });
    expect((await failure(t.kit.cases.create(t.admin, { title: "t", severity: 1, teams: [{ id: theirs.id }] }))).paths).toEqual(["teams.0.id"]);
  });
});

describe("case sharing between organizations", () => {
  it("needs both policies, is read-only for the receiver, still obeys TLP, and stops when a policy turns it off", async () => {
    const t = await makeTestKit();
    const partner = await addOrganization(t.kit, "Partner");
    const stranger = await addOrganization(t.kit, "Stranger");
    expect((await failure(t.kit.cases.create(t.admin, { title: "s", severity: 2, organizations: [partner.organizationId] }))).code).toBe("organization_restricted");
    await t.kit.organizations.updatePolicy(t.admin, { allowCaseSharing: true });
    // A partner that does not accept shared cases answers exactly what an id of no organization does.
    const answer = (organizationId: string) =>
      t.kit.cases.create(t.admin, { title: "s", severity: 2, organizations: [organizationId] }).then(
        () => null,
        (e: { code: string; message: string; errors?: unknown }) => ({ code: e.code, message: e.message, errors: e.errors }),
      );
    const refusal = await answer(partner.organizationId);
    expect(refusal).toMatchObject({ errors: [{ path: "organizations" }] });
    expect(refusal!.code).not.toBe("organization_restricted");
    expect(await answer(t.kit.deps.ids.next("org"))).toEqual(refusal);
    await t.kit.organizations.updatePolicy(partner.admin, { allowCaseSharing: true });

    const shared = await t.kit.cases.create(t.admin, { title: "shared", severity: 2, tlp: 1, organizations: [partner.organizationId] });
    const red = await t.kit.cases.create(t.admin, { title: "red", severity: 2, tlp: 4, organizations: [partner.organizationId] });
    expect((await t.kit.cases.get(partner.admin, shared.id)).title).toBe("shared");
    expect((await failure(t.kit.cases.update(partner.admin, shared.id, { title: "mine" }))).code).toBe("organization_restricted");
    expect((await failure(t.kit.cases.get(principalFor(partner.admin, { tlpClearance: 2 }), red.id))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.cases.get(stranger.admin, shared.id))).code).toBe("not_found");

    // Once a policy turns sharing off, the case is another tenant's like any other: 404.
    await t.kit.organizations.updatePolicy(partner.admin, { allowCaseSharing: false });
    expect((await failure(t.kit.cases.get(partner.admin, shared.id))).code).toBe("not_found");
  });
});

describe("the TLP audit log", () => {
  it("records views, edits, TLP changes and denied attempts, filters them, and its chain verifies", async () => {
    const t = await makeTestKit();
    const amber = principalFor(t.admin, { tlpClearance: 2, keyId: "key_00000000000000000000000000", origin: { ip: "198.51.100.7", userAgent: "curl/8" } });
    const c = await t.kit.cases.create(t.admin, { title: "t", severity: 1, tlp: 2 });
    await t.kit.cases.get(amber, c.id);
    await t.kit.cases.update(t.admin, c.id, { tlp: 4 });
    expect((await failure(t.kit.cases.get(amber, c.id))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.cases.update(amber, c.id, { title: "x" }))).code).toBe("tlp_restricted");
    await t.kit.cases.list(t.admin, {});

    const all = (await t.kit.tlp.auditLogs(t.admin, { resourceId: c.id })).data;
    expect(all.map((e) => [e.action, e.outcome, e.tlpBefore, e.tlpAfter])).toEqual([
      ["view", "allowed", 4, 4],
      ["edit", "denied", 4, 4],
      ["view", "denied", 4, 4],
      ["change", "allowed", 2, 4],
      ["view", "allowed", 2, 2],
      ["edit", "allowed", null, 2],
    ]);
    const denied = (await t.kit.tlp.auditLogs(t.admin, { outcome: "denied", action: ["view"] })).data;
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actorKeyId: "key_00000000000000000000000000", ip: "198.51.100.7", userAgent: "curl/8", resourceType: "case" });
    expect((await t.kit.tlp.auditLogs(t.admin, { actorId: "key_00000000000000000000000000" })).data).toHaveLength(3);
    expect(await t.kit.tlp.verify(t.admin)).toEqual({ ok: true, checked: 6 });
    expect((await failure(t.kit.tlp.auditLogs(principalFor(t.admin, { scopes: new Set<Scope>(["cases:read"]) }), {}))).code).toBe("missing_scope");
    const constants = t.kit.tlp.constants(t.admin);
    expect(constants.tlp.map((l) => [l.level, l.label, l.color])).toEqual([
      [0, "TLP:CLEAR", "#FFFFFF"],
      [1, "TLP:GREEN", "#33FF00"],
      [2, "TLP:AMBER", "#FFC000"],
      [3, "TLP:AMBER+STRICT", "#FFC000"],
      [4, "TLP:RED", "#FF2B2B"],
    ]);
  });

  it("a rolled-back change leaves no TLP audit entry", async () => {
    const t = await makeTestKit();
    const c = await t.kit.cases.create(t.admin, { title: "t", severity: 1 });
    await failure(t.kit.cases.update(t.admin, c.id, { statusValue: "closed", assigneeId: "user_00000000000000000000000000" }));
    expect((await t.kit.tlp.auditLogs(t.admin, { resourceId: c.id })).data).toHaveLength(1);
  });
});
