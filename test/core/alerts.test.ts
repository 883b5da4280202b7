import { beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { Alert, CaseKit, ErrorCode, Principal, Storage } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import type { UnitOfWork } from "../../core/ports/storage.js";
import { addOrganization, addUser, keyHashSecret, principalFor } from "../helpers/kit.js";
import { addAlert } from "../helpers/parents.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; paths: string[]; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; message: string; errors?: { path: string }[] };
    return { code: e.code, paths: (e.errors ?? []).map((x) => x.path), message: e.message };
  }
  throw new Error("expected a failure");
}

/**
 * Storage whose repositories fail on demand: `fail("alerts.update")` makes the next calls of that
 * method throw (after `skip` successful ones), so a test can break a unit of work halfway.
 */
function faultyStorage(inner: Storage) {
  const faults = new Map<string, { skip: number }>();
  const wrap = (tx: UnitOfWork): UnitOfWork =>
    new Proxy(tx, {
      get(target, repoName) {
        const repo = Reflect.get(target, repoName) as object;
        if (typeof repoName !== "string" || typeof repo !== "object" || repo === null) return repo;
        return new Proxy(repo, {
          get(repoTarget, method) {
            const value = Reflect.get(repoTarget, method) as unknown;
            if (typeof value !== "function") return value;
            const fault = typeof method === "string" ? faults.get(`${repoName}.${method}`) : undefined;
            return (...args: unknown[]) => {
              if (fault) {
                if (fault.skip === 0) throw new Error(`injected fault in ${repoName}.${String(method)}`);
                fault.skip -= 1;
              }
              return (value as (...a: unknown[]) => unknown).apply(repoTarget, args);
            };
          },
        });
      },
    });
  const storage: Storage = {
    transaction: (work) => inner.transaction((tx) => work(wrap(tx))),
    read: (work) => inner.read((tx) => work(wrap(tx))),
    migrate: () => inner.migrate(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return {
    storage,
    fail: (name: string, skip = 0) => faults.set(name, { skip }),
    heal: () => faults.clear(),
  };
}

interface Setup {
  kit: CaseKit;
  clock: ManualClock;
  admin: Principal;
  organizationId: string;
  fail: (name: string, skip?: number) => void;
  heal: () => void;
}

async function setup(): Promise<Setup> {
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const inner = createSqliteStorage({ path: ":memory:" });
  await inner.migrate();
  const { storage, fail, heal } = faultyStorage(inner);
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  return { kit, clock, admin: await kit.authenticateKey(init.apiKey), organizationId: init.organization.id, fail, heal };
}

const report = { title: "Impossible travel for j.doe", severity: 2, source: "siem", sourceRef: "siem-1001" };

describe("alerts", () => {
  let t: Setup;
  /** An analyst of the organization with the admin's scopes (so only the role differs). */
  let analyst: Principal;

  const events = () => t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 500 }));
  const auditLog = () => t.kit.storage.read((tx) => tx.audit.list(t.organizationId, { limit: 500 }));
  const stored = (id: string) => t.kit.storage.read((tx) => tx.alerts.findById(t.organizationId, id, { includeDeleted: true }));
  const caseCount = async () => (await t.kit.cases.list(t.admin, { limit: 500 })).data.length;

  beforeEach(async () => {
    t = await setup();
    const user = await addUser(t.kit, t.organizationId, { role: "analyst" });
    analyst = principalFor(t.admin, { userId: user.id, keyId: null, role: "analyst" });
  });

  describe("idempotent ingestion", () => {
    it("creates a new alert with its defaults, an audit entry and an alert.created event", async () => {
      const created = await t.kit.alerts.create(t.admin, { ...report, tags: [{ name: "travel" }, { name: "travel" }] });
      expect(created).toMatchObject({
        deduplicated: false,
        organizationId: t.organizationId,
        statusValue: "new",
        tlp: 2,
        pap: 2,
        occurrences: 1,
        lastSeenAt: "2026-03-01T12:00:00.000Z",
        tags: [{ name: "travel" }],
        caseId: null,
        deletedAt: null,
        observables: [],
      });
      expect(created.id).toMatch(/^alert_[0-9a-z]{26}$/);
      const { deduplicated: _d, observables: _o, ...record } = created;
      expect(await stored(created.id)).toEqual(record);
      expect((await events()).map((e) => [e.name, e.resourceId])).toEqual([["alert.created", created.id]]);
      expect((await auditLog()).map((a) => a.action)).toContain("alert.created");
    });

    it("folds a repeated (source, sourceRef) into the live alert: occurrences, lastSeenAt, tags united, marking only raised", async () => {
      const first = await t.kit.alerts.create(t.admin, { ...report, tlp: 2, pap: 1, tags: [{ name: "travel" }], customFields: { a: 1 } });
      t.clock.advance(60_000);
      const second = await t.kit.alerts.create(t.admin, {
        ...report,
        title: "Impossible travel (again)",
        severity: 3,
        tlp: 1,
        pap: 3,
        tags: [{ name: "vpn" }, { name: "travel", color: "#ff0000" }],
        customFields: { b: 2 },
      });
      expect(second.id).toBe(first.id);
      expect(second).toMatchObject({
        deduplicated: true,
        occurrences: 2,
        lastSeenAt: "2026-03-01T12:01:00.000Z",
        updatedAt: "2026-03-01T12:01:00.000Z",
        createdAt: first.createdAt,
        title: "Impossible travel (again)",
        severity: 3,
        tlp: 2,
        pap: 3,
        tags: [{ name: "travel", color: "#ff0000" }, { name: "vpn" }],
        customFields: { a: 1, b: 2 },
      });
      t.clock.advance(1000);
      const third = await t.kit.alerts.create(t.admin, { ...report, tlp: 3 });
      expect(third).toMatchObject({ deduplicated: true, occurrences: 3, tlp: 3, lastSeenAt: "2026-03-01T12:01:01.000Z" });
      const list = await t.kit.alerts.list(t.admin, {});
      expect(list.data.map((a) => a.id)).toEqual([first.id]);
      expect((await events()).map((e) => e.name)).toEqual(["alert.updated", "alert.updated", "alert.created"]);
    });

    it("another source, or no sourceRef, is another alert", async () => {
      const a = await t.kit.alerts.create(t.admin, report);
      const b = await t.kit.alerts.create(t.admin, { ...report, source: "edr" });
      const { sourceRef: _r, ...noRef } = report;
      const c = await t.kit.alerts.create(t.admin, noRef);
      const d = await t.kit.alerts.create(t.admin, noRef);
      expect(new Set([a.id, b.id, c.id, d.id]).size).toBe(4);
      expect([a, b, c, d].map((x) => x.deduplicated)).toEqual([false, false, false, false]);
    });

    it("reopens a closed alert to new when the source reports it again; an imported one stays imported", async () => {
      const closed = await t.kit.alerts.create(t.admin, report);
      await t.kit.alerts.update(t.admin, closed.id, { statusValue: "closed" });
      expect(await t.kit.alerts.create(t.admin, report)).toMatchObject({ id: closed.id, deduplicated: true, statusValue: "new", occurrences: 2 });

      const imported = await t.kit.alerts.create(t.admin, { ...report, sourceRef: "siem-2002" });
      await t.kit.alerts.promote(t.admin, imported.id, {});
      expect(await t.kit.alerts.create(t.admin, { ...report, sourceRef: "siem-2002" })).toMatchObject({ id: imported.id, statusValue: "imported", occurrences: 2 });
    });

    it("saves the body's observables on the alert, deduplicated per (dataType, data)", async () => {
      const created = await t.kit.alerts.create(t.admin, {
        ...report,
        observables: [
          { dataType: "ip", data: "192.0.2.7" },
          { dataType: "ip", data: " 192.0.2.7 ", ioc: true },
          { dataType: "domain", data: "Evil.Example" },
        ],
      });
      expect(created.observables.map((o) => [o.dataType, o.data, o.alertId, o.tlp])).toEqual([
        ["ip", "192.0.2.7", created.id, 2],
        ["domain", "evil.example", created.id, 2],
      ]);
      expect(created.observables[0]!.ioc).toBe(true);
      // A repeated report with the same value merges into the alert's record.
      const again = await t.kit.alerts.create(t.admin, { ...report, observables: [{ dataType: "ip", data: "192.0.2.7", sighted: true }] });
      expect(again.observables).toHaveLength(1);
      expect(again.observables[0]).toMatchObject({ id: created.observables[0]!.id, ioc: true, sighted: true });
      expect((await t.kit.observables.listOf(t.admin, { kind: "alert", id: created.id }, {})).data).toHaveLength(2);
    });

    it("refuses an invalid body or an unknown assignee with nothing written", async () => {
      expect(await failure(t.kit.alerts.create(t.admin, { ...report, severity: 5 }))).toMatchObject({ code: "validation_failed", paths: ["severity"] });
      expect(await failure(t.kit.alerts.create(t.admin, { ...report, organizationId: "org_x" }))).toMatchObject({ code: "validation_failed" });
      expect(await failure(t.kit.alerts.create(t.admin, { ...report, observables: [{ dataType: "ip", data: "999.1.1.1" }] }))).toMatchObject({
        code: "validation_failed",
        paths: ["observables.0.data"],
      });
      const disabled = await addUser(t.kit, t.organizationId, { status: "disabled" });
      // A well-formed id of a user who cannot be assigned: the records' state, not the body's shape.
      expect(await failure(t.kit.alerts.create(t.admin, { ...report, assigneeId: disabled.id }))).toMatchObject({ code: "unknown_reference", paths: ["assigneeId"] });
      expect(await events()).toEqual([]);
    });
  });

  describe("lifecycle", () => {
    it("moves forward and back as the table allows, and refuses the rest with invalid_transition", async () => {
      const alert = await t.kit.alerts.create(analyst, report);
      expect((await t.kit.alerts.update(analyst, alert.id, { statusValue: "acknowledged" })).statusValue).toBe("acknowledged");
      expect((await t.kit.alerts.update(analyst, alert.id, { statusValue: "new" })).statusValue).toBe("new");
      expect((await t.kit.alerts.update(analyst, alert.id, { statusValue: "closed" })).statusValue).toBe("closed");
      // imported comes only from promote and merge.
      expect((await failure(t.kit.alerts.update(t.admin, alert.id, { statusValue: "imported" }))).code).toBe("invalid_transition");
      expect((await stored(alert.id))!.statusValue).toBe("closed");
      const other = await t.kit.alerts.create(analyst, { ...report, sourceRef: "siem-3" });
      expect((await failure(t.kit.alerts.update(t.admin, other.id, { statusValue: "unknown" }))).code).toBe("unknown_status");
    });

    it("lets only an admin or the assignee reopen a closed alert", async () => {
      const alert = await t.kit.alerts.create(t.admin, { ...report, assigneeId: analyst.userId });
      await t.kit.alerts.update(t.admin, alert.id, { statusValue: "closed" });
      const bystanderUser = await addUser(t.kit, t.organizationId, { role: "analyst" });
      const bystander = principalFor(analyst, { userId: bystanderUser.id });
      expect((await failure(t.kit.alerts.update(bystander, alert.id, { statusValue: "new" }))).code).toBe("invalid_transition");
      expect((await t.kit.alerts.update(analyst, alert.id, { statusValue: "acknowledged" })).statusValue).toBe("acknowledged");
      await t.kit.alerts.update(analyst, alert.id, { statusValue: "closed" });
      expect((await t.kit.alerts.update(t.admin, alert.id, { statusValue: "new" })).statusValue).toBe("new");
    });

    it("keeps an imported alert imported: any other status is invalid_transition, and importing again is conflict", async () => {
      const alert = await t.kit.alerts.create(t.admin, report);
      await t.kit.alerts.promote(t.admin, alert.id, {});
      for (const statusValue of ["new", "acknowledged", "closed"]) {
        expect((await failure(t.kit.alerts.update(t.admin, alert.id, { statusValue }))).code).toBe("invalid_transition");
      }
      expect((await failure(t.kit.alerts.promote(t.admin, alert.id, {}))).code).toBe("conflict");
      // A closed alert must be reopened before it can be imported.
      const closed = await t.kit.alerts.create(t.admin, { ...report, sourceRef: "siem-9" });
      await t.kit.alerts.update(t.admin, closed.id, { statusValue: "closed" });
      expect((await failure(t.kit.alerts.promote(t.admin, closed.id, {}))).code).toBe("invalid_transition");
    });

    it("records the update with an audit entry and an alert.updated event", async () => {
      const alert = await t.kit.alerts.create(t.admin, report);
      t.clock.advance(5000);
      const updated = await t.kit.alerts.update(t.admin, alert.id, { description: "Seen from two countries", assigneeId: analyst.userId });
      expect(updated).toMatchObject({ description: "Seen from two countries", assigneeId: analyst.userId, updatedAt: "2026-03-01T12:00:05.000Z" });
      const [latest] = await events();
      expect(latest).toMatchObject({ name: "alert.updated", resourceId: alert.id, payload: { assigneeId: analyst.userId } });
      const [entry] = await auditLog();
      expect(entry).toMatchObject({ action: "alert.updated", target: { type: "alert", id: alert.id } });
      expect(entry!.changes).toContainEqual({ path: "assigneeId", before: null, after: analyst.userId });
    });
  });

  describe("TLP", () => {
    it("refuses to create above the caller's clearance, hides such alerts from get (403) and list", async () => {
      const green = principalFor(t.admin, { tlpClearance: 1 });
      expect((await failure(t.kit.alerts.create(green, { ...report, tlp: 3 }))).code).toBe("tlp_restricted");
      // The default marking (2) is above clearance 1 as well.
      expect((await failure(t.kit.alerts.create(green, report))).code).toBe("tlp_restricted");
      expect((await failure(t.kit.alerts.create(green, { ...report, tlp: 1, observables: [{ dataType: "ip", data: "192.0.2.1", tlp: 3 }] }))).code).toBe("tlp_restricted");
      const low = await t.kit.alerts.create(green, { ...report, tlp: 1 });
      const red = await t.kit.alerts.create(t.admin, { ...report, sourceRef: "red-1", tlp: 4 });
      expect((await failure(t.kit.alerts.get(green, red.id))).code).toBe("tlp_restricted");
      expect((await failure(t.kit.alerts.update(green, red.id, { title: "x" }))).code).toBe("tlp_restricted");
      expect((await failure(t.kit.alerts.delete(green, red.id))).code).toBe("tlp_restricted");
      expect((await t.kit.alerts.list(green, {})).data.map((a) => a.id)).toEqual([low.id]);
      expect((await t.kit.alerts.list(t.admin, {})).data.map((a) => a.id)).toEqual([red.id, low.id]);
      // A report of a reference whose alert is above the caller's clearance answers as for a new
      // reference: an alert of the caller's own (a 403 here would tell the RED one exists); the
      // RED alert is left as it was.
      const separate = await t.kit.alerts.create(green, { ...report, sourceRef: "red-1", tlp: 1 });
      expect(separate).toMatchObject({ deduplicated: false, occurrences: 1, tlp: 1, sourceRef: "red-1" });
      expect(separate.id).not.toBe(red.id);
      expect((await stored(red.id))!.occurrences).toBe(1);
      // Reports at the caller's level fold into their own alert from then on.
      expect(await t.kit.alerts.create(green, { ...report, sourceRef: "red-1", tlp: 1 })).toMatchObject({ id: separate.id, deduplicated: true, occurrences: 2 });
    });

    it("refuses to raise a marking above the caller's clearance", async () => {
      const amber = principalFor(t.admin, { tlpClearance: 2 });
      const alert = await t.kit.alerts.create(amber, report);
      expect((await failure(t.kit.alerts.update(amber, alert.id, { tlp: 3 }))).code).toBe("tlp_restricted");
      expect((await stored(alert.id))!.tlp).toBe(2);
    });
  });

  describe("soft delete and restore", () => {
    it("hides a deleted alert from get and list, audits and events it; an admin restores it", async () => {
      const alert = await t.kit.alerts.create(t.admin, { ...report, observables: [{ dataType: "ip", data: "192.0.2.44" }] });
      t.clock.advance(1000);
      const deleted = await t.kit.alerts.delete(analyst, alert.id);
      expect(deleted).toMatchObject({ deletedAt: "2026-03-01T12:00:01.000Z", deletedBy: analyst.userId });
      expect((await failure(t.kit.alerts.get(t.admin, alert.id))).code).toBe("not_found");
      expect((await failure(t.kit.alerts.update(t.admin, alert.id, { title: "x" }))).code).toBe("not_found");
      expect((await failure(t.kit.alerts.delete(t.admin, alert.id))).code).toBe("not_found");
      expect((await t.kit.alerts.list(t.admin, {})).data).toEqual([]);
      expect((await t.kit.observables.list(t.admin, { data: "192.0.2.44" })).data).toEqual([]);
      expect((await t.kit.alerts.countBySource(t.admin, {})).data).toEqual([]);
      expect((await t.kit.alerts.list(t.admin, { includeDeleted: "true" })).data.map((a) => a.id)).toEqual([alert.id]);
      // Deleted alerts are an admin's business.
      const withoutAdmin = principalFor(t.admin, { scopes: new Set([...t.admin.scopes].filter((s) => s !== "org:admin")) });
      expect((await failure(t.kit.alerts.list(withoutAdmin, { includeDeleted: "true" }))).code).toBe("missing_scope");
      expect((await events())[0]).toMatchObject({ name: "alert.deleted", resourceId: alert.id });

      expect((await failure(t.kit.alerts.restore(withoutAdmin, alert.id))).code).toBe("missing_scope");
      const restored = await t.kit.alerts.restore(t.admin, alert.id);
      expect(restored).toMatchObject({ id: alert.id, deletedAt: null, deletedBy: null });
      expect((await t.kit.alerts.get(t.admin, alert.id)).id).toBe(alert.id);
      expect((await t.kit.observables.list(t.admin, { data: "192.0.2.44" })).data).toHaveLength(1);
      expect((await events())[0]).toMatchObject({ name: "alert.restored", resourceId: alert.id });
      expect((await failure(t.kit.alerts.restore(t.admin, alert.id))).code).toBe("conflict");
    });

    it("a new report after deletion is a new alert; restoring the old one then is conflict", async () => {
      const old = await t.kit.alerts.create(t.admin, report);
      await t.kit.alerts.delete(t.admin, old.id);
      const fresh = await t.kit.alerts.create(t.admin, report);
      expect(fresh).toMatchObject({ deduplicated: false, occurrences: 1 });
      expect(fresh.id).not.toBe(old.id);
      expect((await failure(t.kit.alerts.restore(t.admin, old.id))).code).toBe("conflict");
      expect((await stored(old.id))!.deletedAt).not.toBeNull();
      expect((await failure(t.kit.alerts.restore(t.admin, "alert_01kaaaaaaaaaaaaaaaaaaaaaaa"))).code).toBe("not_found");
    });
  });

  describe("promote and merge", () => {
    it("promotes to a new case that carries the alert's fields and its observables, deduplicated", async () => {
      const alert = await t.kit.alerts.create(t.admin, {
        ...report,
        description: "Logins from Lisbon and Osaka",
        severity: 3,
        tlp: 1,
        pap: 3,
        typeValue: "identity",
        assigneeId: analyst.userId,
        tags: [{ name: "travel" }],
        customFields: { user: "j.doe" },
        observables: [
          { dataType: "ip", data: "192.0.2.1" },
          { dataType: "ip", data: "192.0.2.1", ioc: true },
          { dataType: "mail", data: "J.Doe@Example.com" },
        ],
      });
      t.clock.advance(1000);
      const result = await t.kit.alerts.promote(t.admin, alert.id, { title: "Account takeover of j.doe" });
      expect(result.case).toMatchObject({
        title: "Account takeover of j.doe",
        description: "Logins from Lisbon and Osaka",
        severity: 3,
        tlp: 1,
        pap: 3,
        typeValue: "identity",
        assigneeId: analyst.userId,
        source: "siem",
        sourceRef: "siem-1001",
        tags: [{ name: "travel" }],
        customFields: { user: "j.doe" },
        statusValue: "new",
        number: 1,
      });
      expect(result.alert).toMatchObject({ statusValue: "imported", caseId: result.case.id });
      expect(result.observables.created.map((o) => [o.dataType, o.data, o.caseId, o.alertId, o.ioc])).toEqual([
        ["ip", "192.0.2.1", result.case.id, null, true],
        ["mail", "j.doe@example.com", result.case.id, null, false],
      ]);
      expect(await stored(alert.id)).toMatchObject({ statusValue: "imported", caseId: result.case.id });
      expect((await t.kit.cases.get(t.admin, result.case.id)).id).toBe(result.case.id);
      expect((await t.kit.observables.listOf(t.admin, { kind: "case", id: result.case.id }, {})).data).toHaveLength(2);
      // The alert keeps its own observables.
      expect((await t.kit.observables.listOf(t.admin, { kind: "alert", id: alert.id }, {})).data).toHaveLength(2);
      const names = (await events()).map((e) => e.name);
      expect(names[0]).toBe("alert.promoted");
      expect(names).toContain("case.created");
      expect(names.filter((n) => n === "observable.created")).toHaveLength(4);
    });

    it("changes nothing when the promotion fails halfway", async () => {
      const alert = await t.kit.alerts.create(t.admin, { ...report, observables: [{ dataType: "ip", data: "192.0.2.1" }, { dataType: "domain", data: "evil.example" }] });
      const eventsBefore = await events();
      const auditBefore = await auditLog();
      // The case and the observable copies are written; the alert's own change then fails.
      t.fail("alerts.update");
      await expect(t.kit.alerts.promote(t.admin, alert.id, {})).rejects.toThrow(/injected fault/);
      t.heal();
      expect(await caseCount()).toBe(0);
      expect((await t.kit.observables.list(t.admin, {})).data.every((o) => o.alertId === alert.id)).toBe(true);
      expect(await stored(alert.id)).toMatchObject({ statusValue: "new", caseId: null });
      expect(await events()).toEqual(eventsBefore);
      expect(await auditLog()).toEqual(auditBefore);
      // The case number was not used up either.
      expect((await t.kit.alerts.promote(t.admin, alert.id, {})).case.number).toBe(1);
    });

    it("merges into an existing case: tags united, observables deduplicated against the case's own", async () => {
      const target = await t.kit.cases.create(t.admin, { title: "Credential phishing", severity: 3, tags: [{ name: "phishing" }] });
      await t.kit.observables.create(t.admin, { kind: "case", id: target.id }, { dataType: "ip", data: "192.0.2.1" });
      const alert = await t.kit.alerts.create(t.admin, {
        ...report,
        tags: [{ name: "travel" }, { name: "phishing" }],
        observables: [
          { dataType: "ip", data: "192.0.2.1" },
          { dataType: "ip", data: "192.0.2.2" },
        ],
      });
      const result = await t.kit.alerts.merge(t.admin, alert.id, { caseId: target.id });
      expect(result.case.tags).toEqual([{ name: "phishing" }, { name: "travel" }]);
      expect(result.alert).toMatchObject({ statusValue: "imported", caseId: target.id });
      expect(result.observables.created.map((o) => o.data)).toEqual(["192.0.2.2"]);
      expect([...result.observables.merged, ...result.observables.unchanged].map((o) => o.data)).toEqual(["192.0.2.1"]);
      expect((await t.kit.observables.listOf(t.admin, { kind: "case", id: target.id }, {})).data).toHaveLength(2);
      expect((await events())[0]).toMatchObject({ name: "alert.merged", resourceId: alert.id });
    });

    it("refuses to merge into a case shared with the organization (403), one above clearance (403) or an unknown one (404)", async () => {
      const partner = await addOrganization(t.kit, "Partner SOC");
      await t.kit.organizations.updatePolicy(t.admin, { allowCaseSharing: true });
      await t.kit.organizations.updatePolicy(partner.admin, { allowCaseSharing: true });
      const shared = await t.kit.cases.create(partner.admin, { title: "Shared", severity: 2, tlp: 1, organizations: [t.organizationId] });
      const red = await t.kit.cases.create(t.admin, { title: "Red", severity: 2, tlp: 4 });
      const alert = await t.kit.alerts.create(t.admin, { ...report, tlp: 1 });
      expect((await failure(t.kit.alerts.merge(t.admin, alert.id, { caseId: shared.id }))).code).toBe("organization_restricted");
      const amber = principalFor(t.admin, { tlpClearance: 2 });
      expect((await failure(t.kit.alerts.merge(amber, alert.id, { caseId: red.id }))).code).toBe("tlp_restricted");
      expect((await failure(t.kit.alerts.merge(t.admin, alert.id, { caseId: "case_01kaaaaaaaaaaaaaaaaaaaaaaa" }))).code).toBe("not_found");
      // Promote and merge need both scopes.
      const noCases = principalFor(t.admin, { scopes: new Set(["alerts:read", "alerts:write"] as const) });
      expect((await failure(t.kit.alerts.merge(noCases, alert.id, { caseId: red.id }))).code).toBe("missing_scope");
      expect((await failure(t.kit.alerts.promote(noCases, alert.id, {}))).code).toBe("missing_scope");
      expect(await stored(alert.id)).toMatchObject({ statusValue: "new", caseId: null });
    });
  });

  describe("alerts by source", () => {
    it("counts live alerts per source within clearance, with an optional range and status filter", async () => {
      const add = (overrides: Partial<Alert>) => addAlert({ kit: t.kit, organizationId: t.organizationId }, overrides);
      await add({ source: "edr", createdAt: "2026-02-01T00:00:00.000Z" });
      await add({ source: "edr", createdAt: "2026-02-10T00:00:00.000Z", statusValue: "closed" });
      await add({ source: "siem", createdAt: "2026-02-15T00:00:00.000Z" });
      await add({ source: "siem", createdAt: "2026-02-15T00:00:00.000Z", tlp: 4 });
      await add({ source: "siem", createdAt: "2026-02-15T00:00:00.000Z", deletedAt: "2026-02-16T00:00:00.000Z", deletedBy: t.admin.userId });
      await add({ source: "waf", createdAt: "2026-02-20T00:00:00.000Z", deletedAt: "2026-02-21T00:00:00.000Z", deletedBy: t.admin.userId });
      const other = await addOrganization(t.kit, "Other SOC");
      await addAlert({ kit: t.kit, organizationId: other.organizationId }, { source: "edr" });

      const amber = principalFor(t.admin, { tlpClearance: 2 });
      expect((await t.kit.alerts.countBySource(amber, {})).data).toEqual([
        { source: "edr", count: 2 },
        { source: "siem", count: 1 },
      ]);
      expect((await t.kit.alerts.countBySource(t.admin, {})).data).toEqual([
        { source: "edr", count: 2 },
        { source: "siem", count: 2 },
      ]);
      expect((await t.kit.alerts.countBySource(t.admin, { statusValue: "closed" })).data).toEqual([{ source: "edr", count: 1 }]);
      expect((await t.kit.alerts.countBySource(t.admin, { statusValue: ["new", "closed"], from: "2026-02-10T00:00:00Z", to: "2026-02-15T00:00:00Z" })).data).toEqual([
        { source: "edr", count: 1 },
      ]);
      expect((await t.kit.alerts.countBySource(t.admin, { from: "2026-02-15T00:00:00Z" })).data).toEqual([{ source: "siem", count: 2 }]);
      // A reversed range is empty, as the lists' createdAfter/createdBefore are.
      expect((await t.kit.alerts.countBySource(t.admin, { from: "2026-02-15T00:00:00Z", to: "2026-02-01T00:00:00Z" })).data).toEqual([]);
      expect((await failure(t.kit.alerts.countBySource(principalFor(t.admin, { scopes: new Set(["cases:read"] as const) }), {}))).code).toBe("missing_scope");
    });
  });

  describe("bulk assign", () => {
    const add = (overrides: Partial<Alert> = {}) => addAlert({ kit: t.kit, organizationId: t.organizationId }, overrides);

    it("assigns the alerts named by ids and reports the others as skipped, each change with its bulk request id", async () => {
      const a = await add();
      const b = await add({ assigneeId: t.admin.userId });
      const red = await add({ tlp: 4 });
      const deleted = await add({ deletedAt: "2026-03-01T12:00:00.000Z", deletedBy: t.admin.userId });
      const other = await addOrganization(t.kit, "Other SOC");
      const foreign = await addAlert({ kit: t.kit, organizationId: other.organizationId });
      const amber = principalFor(t.admin, { tlpClearance: 2 });
      t.clock.advance(1000);

      const result = await t.kit.alerts.bulkAssign(amber, { ids: [a.id, b.id, red.id, deleted.id, foreign.id, "alert_01kaaaaaaaaaaaaaaaaaaaaaaa", a.id], assigneeId: analyst.userId });
      expect(result).toMatchObject({ matched: 6, assigned: 2 });
      const byId = (x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id);
      expect([...result.skipped].sort(byId)).toEqual(
        [
          { id: red.id, code: "tlp_restricted" },
          { id: deleted.id, code: "not_found" },
          { id: foreign.id, code: "not_found" },
          { id: "alert_01kaaaaaaaaaaaaaaaaaaaaaaa", code: "not_found" },
        ].sort(byId),
      );
      expect(result.bulkRequestId).toMatch(/^bulk_/);
      for (const id of [a.id, b.id]) expect(await stored(id)).toMatchObject({ assigneeId: analyst.userId, updatedAt: "2026-03-01T12:00:01.000Z" });
      for (const id of [red.id, deleted.id]) expect((await stored(id))!.assigneeId).toBeNull();
      expect(await t.kit.storage.read((tx) => tx.alerts.findById(other.organizationId, foreign.id))).toMatchObject({ assigneeId: null });

      const changeEvents = (await events()).filter((e) => e.bulkRequestId === result.bulkRequestId);
      expect(changeEvents.map((e) => [e.name, e.resourceId]).sort()).toEqual([["alert.updated", a.id], ["alert.updated", b.id]].sort());
      expect(changeEvents[0]!.payload).toMatchObject({ assigneeId: analyst.userId });
      const entries = (await auditLog()).filter((e) => e.bulkRequestId === result.bulkRequestId);
      expect(entries.map((e) => e.target.id).sort()).toEqual([a.id, b.id].sort());
      expect(entries.find((e) => e.target.id === b.id)!.changes).toContainEqual({ path: "assigneeId", before: t.admin.userId, after: analyst.userId });
      // The denial is in the TLP audit log.
      const denials = await t.kit.storage.read((tx) => tx.tlpAudit.list(t.organizationId, { resourceType: ["alert"], outcome: "denied" }, { limit: 10 }));
      expect(denials.map((d) => d.resourceId)).toEqual([red.id]);
    });

    it("assigns every alert the selectAll filters match, within clearance, never a deleted one", async () => {
      const edr = [await add({ source: "edr" }), await add({ source: "edr", severity: 4 }), await add({ source: "edr", tlp: 4 })];
      const siem = await add({ source: "siem" });
      const deleted = await add({ source: "edr", deletedAt: "2026-03-01T12:00:00.000Z", deletedBy: t.admin.userId });
      const amber = principalFor(t.admin, { tlpClearance: 2 });

      const result = await t.kit.alerts.bulkAssign(amber, { assigneeId: analyst.userId, options: { selectAll: true, filters: { source: ["edr"] } } });
      expect(result).toMatchObject({ matched: 2, assigned: 2, skipped: [] });
      expect((await stored(edr[0]!.id))!.assigneeId).toBe(analyst.userId);
      expect((await stored(edr[1]!.id))!.assigneeId).toBe(analyst.userId);
      expect((await stored(edr[2]!.id))!.assigneeId).toBeNull();
      expect((await stored(siem.id))!.assigneeId).toBeNull();
      expect((await stored(deleted.id))!.assigneeId).toBeNull();

      const bySeverity = await t.kit.alerts.bulkAssign(t.admin, { assigneeId: t.admin.userId, options: { selectAll: true, filters: { severity: 4, q: "travel" } } });
      expect(bySeverity).toMatchObject({ matched: 1, assigned: 1 });
      expect((await stored(edr[1]!.id))!.assigneeId).toBe(t.admin.userId);
      // No filters: everything the caller can see.
      expect(await t.kit.alerts.bulkAssign(t.admin, { assigneeId: analyst.userId, options: { selectAll: true } })).toMatchObject({ matched: 4, assigned: 4 });
    });

    it("refuses an inactive, unknown or foreign assignee and a malformed body, with nothing changed", async () => {
      const alert = await add();
      const disabled = await addUser(t.kit, t.organizationId, { status: "disabled" });
      const other = await addOrganization(t.kit, "Other SOC");
      for (const assigneeId of [disabled.id, other.admin.userId, "user_01kaaaaaaaaaaaaaaaaaaaaaaa"]) {
        expect(await failure(t.kit.alerts.bulkAssign(t.admin, { ids: [alert.id], assigneeId }))).toMatchObject({ code: "unknown_reference", paths: ["assigneeId"] });
      }
      expect(await failure(t.kit.alerts.bulkAssign(t.admin, { ids: [alert.id], assigneeId: analyst.userId, options: { selectAll: true } }))).toMatchObject({
        code: "validation_failed",
        paths: ["options.selectAll"],
      });
      expect((await failure(t.kit.alerts.bulkAssign(t.admin, { assigneeId: analyst.userId }))).paths).toEqual(["ids"]);
      expect((await failure(t.kit.alerts.bulkAssign(t.admin, { ids: Array.from({ length: 1001 }, (_, i) => `alert_${i}`), assigneeId: analyst.userId }))).paths).toEqual(["ids"]);
      expect((await failure(t.kit.alerts.bulkAssign(t.admin, { assigneeId: analyst.userId, options: { selectAll: true, filters: { color: "red" } } }))).code).toBe("validation_failed");
      const readOnly = principalFor(t.admin, { scopes: new Set(["alerts:read"] as const) });
      expect((await failure(t.kit.alerts.bulkAssign(readOnly, { ids: [alert.id], assigneeId: analyst.userId }))).code).toBe("missing_scope");
      expect((await stored(alert.id))!.assigneeId).toBeNull();
      expect(await events()).toEqual([]);
    });

    it("changes nothing when it fails halfway", async () => {
      const alerts: Alert[] = [];
      for (let i = 0; i < 600; i++) alerts.push(await add());
      const eventsBefore = await events();
      // Ids are loaded and written 500 at a time: the first page is written, the second fails.
      t.fail("alerts.assignMany", 1);
      await expect(t.kit.alerts.bulkAssign(t.admin, { ids: alerts.map((a) => a.id), assigneeId: analyst.userId })).rejects.toThrow(/injected fault/);
      t.heal();
      const after = await t.kit.storage.read((tx) => tx.alerts.findMany(t.organizationId, alerts.slice(0, 500).map((a) => a.id)));
      expect(after).toHaveLength(500);
      expect(after.every((a) => a.assigneeId === null)).toBe(true);
      expect(await events()).toEqual(eventsBefore);
      // Healed, the same request succeeds whole.
      expect(await t.kit.alerts.bulkAssign(t.admin, { ids: alerts.map((a) => a.id), assigneeId: analyst.userId })).toMatchObject({ matched: 600, assigned: 600 });
    });
  });
});
