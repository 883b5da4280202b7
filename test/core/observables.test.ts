import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { ErrorCode, Observable, Principal, Scope } from "../../core/index.js";
import { copyObservablesToCase, createCaseKit, ManualClock, normalizeData, searchSpellings } from "../../core/index.js";
import { saveDeduplicated } from "../../core/observables/dedupe.js";
import type { UnitOfWork } from "../../core/ports/storage.js";
import { addOrganization, keyHashSecret, principalFor } from "../helpers/kit.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { unitWith } from "../helpers/unit-with.js";

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; paths: string[] }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; errors?: { path: string }[] };
    return { code: e.code, paths: (e.errors ?? []).map((x) => x.path) };
  }
  throw new Error("expected a failure");
}

/** A kit on an in-memory SQLite database whose connection the test keeps, to write alert rows. */
async function makeKit() {
  const db = new Database(":memory:");
  const storage = createSqliteStorage({ database: db });
  await storage.migrate();
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  /** An alert row (the alert service is not this test's subject). */
  const addAlert = (organizationId: string, options: { tlp?: number; deleted?: boolean } = {}) => {
    const id = kit.deps.ids.next("alert");
    const at = clock.now().toISOString();
    db.prepare(
      "INSERT INTO alerts (id, organization_id, title, severity, tlp, pap, source, status_value, tags, custom_fields, occurrences, last_seen_at, created_at, updated_at, deleted_at) VALUES (?, ?, 'Alert', 2, ?, 2, 'siem', 'new', '[]', '{}', 1, ?, ?, ?, ?)",
    ).run(id, organizationId, options.tlp ?? 2, at, at, at, options.deleted ? at : null);
    return id;
  };
  return { kit, clock, admin, organizationId: init.organization.id, addAlert };
}

describe("observable data types: format checks and normalisation", () => {
  const good: [string, string, string][] = [
    ["ip", "192.0.2.1", "192.0.2.1"],
    ["ip", " 10.0.0.255 ", "10.0.0.255"],
    ["ip", "2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["ip", "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["ip", "::", "::"],
    ["ip", "::1", "::1"],
    ["ip", "fe80::1:2", "fe80::1:2"],
    ["ip", "::FFFF:192.0.2.1", "::ffff:192.0.2.1"],
    ["ip", "0:0:0:0:0:ffff:c000:0201", "::ffff:192.0.2.1"],
    ["ip", "2001:db8:1:2:3:4:5:6", "2001:db8:1:2:3:4:5:6"],
    ["domain", "Evil.Example.COM", "evil.example.com"],
    ["domain", "example.com.", "example.com"],
    ["domain", "bücher.example", "xn--bcher-kva.example"],
    ["domain", "xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["fqdn", "Mail-01.corp.example.org", "mail-01.corp.example.org"],
    ["url", "https://evil.example/login?next=/A%20B", "https://evil.example/login?next=/A%20B"],
    ["url", "HTTP://EVIL.example/Path/../x", "HTTP://EVIL.example/Path/../x"],
    ["url", "ftp://files.example/a.zip", "ftp://files.example/a.zip"],
    ["hash", "D41D8CD98F00B204E9800998ECF8427E", "d41d8cd98f00b204e9800998ecf8427e"],
    ["hash", "da39a3ee5e6b4b0d3255bfef95601890afd80709", "da39a3ee5e6b4b0d3255bfef95601890afd80709"],
    ["hash", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["hash", "a".repeat(128), "a".repeat(128)],
    ["mail", "Alice.Smith+tag@Example.COM", "alice.smith+tag@example.com"],
    ["filename", "  Invoice 2026.PDF.exe ", "Invoice 2026.PDF.exe"],
    ["other", "Anything At All", "Anything At All"],
    ["ja3", "771,4865-4866,0-23", "771,4865-4866,0-23"],
  ];
  it.each(good)("%s %j is accepted and stored as %j", (type, data, stored) => {
    expect(normalizeData(type, data)).toEqual({ ok: true, value: stored });
  });

  const bad: [string, string][] = [
    ["ip", "256.1.1.1"],
    ["ip", "1.2.3"],
    ["ip", "01.2.3.4"],
    ["ip", "1.2.3.4.5"],
    ["ip", "2001:db8::1::2"],
    ["ip", "2001:db8:1:2:3:4:5:6:7"],
    ["ip", "1:2:3:4:5:6:7::8"],
    ["ip", "fe80::1%eth0"],
    ["ip", "12345::"],
    ["ip", "1.2.3.4::"],
    ["ip", "evil.example"],
    ["domain", "localhost"],
    ["domain", "-evil.example"],
    ["domain", "evil_.example"],
    ["domain", "192.0.2.1"],
    ["domain", "evil..example"],
    ["domain", `${"a".repeat(64)}.example`],
    ["domain", "https://evil.example"],
    ["fqdn", "host"],
    ["url", "evil.example/path"],
    ["url", "javascript:alert(1)"],
    ["url", "file:///etc/passwd"],
    ["url", "http://evil.example/a b"],
    ["url", "http://evil.example/a\u0001b"],
    ["hash", "xyz"],
    ["hash", "d41d8cd98f00b204e9800998ecf8427"],
    ["hash", "g41d8cd98f00b204e9800998ecf8427e"],
    ["mail", "no-at-sign.example"],
    ["mail", "@example.com"],
    ["mail", "a@localhost"],
    ["mail", "a..b@example.com"],
    ["mail", "a b@example.com"],
    ["other", "   "],
  ];
  it.each(bad)("%s %j is refused", (type, data) => {
    expect(normalizeData(type, data).ok).toBe(false);
  });

  it("a search spelling covers the raw text and each built-in normalisation", () => {
    expect(searchSpellings(["1.2.3.4"])).toEqual(["1.2.3.4"]);
    expect(searchSpellings(["EVIL.example"]).sort()).toEqual(["EVIL.example", "evil.example"]);
    expect(searchSpellings(["EVIL.example"], ["filename"])).toEqual(["EVIL.example"]);
    expect(searchSpellings(["2001:DB8::0:1"])).toEqual(["2001:DB8::0:1", "2001:db8::1"]);
  });
});

describe("observable service", () => {
  let t: Awaited<ReturnType<typeof makeKit>>;
  let admin: Principal;
  let caseId: string;
  const events = () => t.kit.storage.read((tx) => tx.events.list(t.organizationId, { limit: 100 }));
  const tlpLog = () => t.kit.storage.read((tx) => tx.tlpAudit.list(t.organizationId, { resourceType: ["observable"] }, { limit: 100 }));
  const onCase = (id = caseId) => ({ kind: "case" as const, id });

  beforeEach(async () => {
    t = await makeKit();
    admin = t.admin;
    caseId = (await t.kit.cases.create(admin, { title: "Phishing", severity: 3, tlp: 3 })).id;
  });

  it("creates with defaults (tlp from the parent), normalised data, an audit entry, an event and a TLP entry", async () => {
    const created = await t.kit.observables.create(admin, onCase(), { dataType: "domain", data: " Evil.Example. " });
    expect(created).toEqual({
      id: expect.stringMatching(/^obs_[0-9a-z]{26}$/),
      organizationId: t.organizationId,
      caseId,
      alertId: null,
      dataType: "domain",
      data: "evil.example",
      tlp: 3,
      pap: 2,
      ioc: false,
      sighted: false,
      tags: [],
      message: null,
      customFields: {},
      createdAt: "2026-03-01T12:00:00.000Z",
      updatedAt: "2026-03-01T12:00:00.000Z",
      createdBy: admin.userId,
      deletedAt: null,
      deletedBy: null,
      deduplicated: false,
    });
    const { deduplicated: _, ...record } = created;
    expect(await t.kit.observables.get(admin, created.id)).toEqual(record);
    const [event] = await events();
    expect(event).toMatchObject({ name: "observable.created", resourceType: "observable", resourceId: created.id, tlp: 3, payload: { data: "evil.example" } });
    expect((await tlpLog()).map((e) => [e.action, e.outcome])).toEqual([["view", "allowed"], ["edit", "allowed"]]);
  });

  it("an explicit tlp, pap, flags, tags and message are kept", async () => {
    const created = await t.kit.observables.create(admin, onCase(), {
      dataType: "ip",
      data: "192.0.2.1",
      tlp: 1,
      pap: 0,
      ioc: true,
      sighted: true,
      tags: [{ name: "c2", color: "#ff0000" }],
      message: "beaconing",
    });
    expect(created).toMatchObject({ tlp: 1, pap: 0, ioc: true, sighted: true, tags: [{ name: "c2", color: "#ff0000" }], message: "beaconing" });
  });

  it("refuses bad input with validation_failed at the field's path, changing nothing", async () => {
    const cases: [unknown, string][] = [
      [{ data: "1.2.3.4" }, "dataType"],
      [{ dataType: "ip" }, "data"],
      [{ dataType: "IP", data: "1.2.3.4" }, "dataType"],
      [{ dataType: "9lives", data: "x" }, "dataType"],
      [{ dataType: "ip", data: "999.1.1.1" }, "data"],
      [{ dataType: "hash", data: "abc" }, "data"],
      [{ dataType: "url", data: "not a url" }, "data"],
      [{ dataType: "mail", data: "nobody" }, "data"],
      [{ dataType: "other", data: "   " }, "data"],
      [{ dataType: "other", data: "x".repeat(4097) }, "data"],
      [{ dataType: "other", data: "x", tlp: 5 }, "tlp"],
      [{ dataType: "other", data: "x", pap: 4 }, "pap"],
      [{ dataType: "other", data: "x", message: "m".repeat(4097) }, "message"],
      [{ dataType: "other", data: "x", tags: [{ name: "" }] }, "tags.0.name"],
      [{ dataType: "other", data: "x", caseId }, "caseId"],
      [{ dataType: "other", data: "x", organizationId: "org_x" }, "organizationId"],
      [{ dataType: "other", data: "x", deletedAt: "2026-01-01T00:00:00Z" }, "deletedAt"],
    ];
    for (const [body, path] of cases) {
      const result = await failure(t.kit.observables.create(admin, onCase(), body));
      expect(result, JSON.stringify(body)).toEqual({ code: "validation_failed", paths: expect.arrayContaining([path]) });
    }
    expect(await events()).toHaveLength(1); // the case's own
  });

  it("a value the case already has is deduplicated: same record, flags OR-ed, tags united, message filled, marking kept", async () => {
    const first = await t.kit.observables.create(admin, onCase(), { dataType: "domain", data: "evil.example", tags: [{ name: "phish" }], tlp: 2 });
    t.clock.advance(60_000);
    const second = await t.kit.observables.create(admin, onCase(), {
      dataType: "domain",
      data: "EVIL.example",
      ioc: true,
      tags: [{ name: "phish", color: "#00ff00" }, { name: "c2" }],
      message: "also in proxy logs",
      tlp: 1,
      pap: 0,
    });
    expect(second).toMatchObject({
      id: first.id,
      deduplicated: true,
      ioc: true,
      sighted: false,
      tags: [{ name: "phish", color: "#00ff00" }, { name: "c2" }],
      message: "also in proxy logs",
      tlp: 2,
      pap: 2,
      createdAt: first.createdAt,
      updatedAt: "2026-03-01T12:01:00.000Z",
    });
    expect((await events()).map((e) => e.name)).toEqual(["observable.updated", "observable.created", "case.created"]);

    // Nothing new to add: the record as it is, nothing written but the read.
    const third = await t.kit.observables.create(admin, onCase(), { dataType: "domain", data: "evil.example", ioc: false });
    expect(third).toMatchObject({ id: first.id, deduplicated: true, ioc: true, updatedAt: "2026-03-01T12:01:00.000Z" });
    expect(await events()).toHaveLength(3);
    const page = await t.kit.observables.listOf(admin, onCase(), {});
    expect(page.data.map((o) => o.id)).toEqual([first.id]);
  });

  it("the same value under another type or in another case is a new observable", async () => {
    const other = (await t.kit.cases.create(admin, { title: "Other", severity: 1 })).id;
    const a = await t.kit.observables.create(admin, onCase(), { dataType: "domain", data: "evil.example" });
    const b = await t.kit.observables.create(admin, onCase(), { dataType: "fqdn", data: "evil.example" });
    const c = await t.kit.observables.create(admin, onCase(other), { dataType: "domain", data: "evil.example" });
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect([a, b, c].every((o) => !o.deduplicated)).toBe(true);
  });

  it("a writer that loses the insert race merges into the winner's record", async () => {
    const winner = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.7" });
    const now = t.clock.now();
    const result = await t.kit.storage.transaction(async (tx) => {
      // The loser looked before the winner committed: its first look finds nothing.
      let looks = 0;
      const blind: UnitOfWork = unitWith(tx, {
        observables: { ...tx.observables, findByValue: (...args) => (looks++ === 0 ? Promise.resolve(null) : tx.observables.findByValue(...args)) },
      });
      const candidate: Observable = { ...winner, id: t.kit.deps.ids.next("obs"), sighted: true, deletedAt: null, deletedBy: null };
      return saveDeduplicated(t.kit.deps, blind, admin, candidate, now);
    });
    expect(result.outcome).toBe("merged");
    expect(result.record).toMatchObject({ id: winner.id, sighted: true });
    expect((await t.kit.observables.get(admin, winner.id)).sighted).toBe(true);
  });

  it("TLP: nobody creates above their clearance or on a parent above it, and a value held above it is added beside, never merged into", async () => {
    const amber = principalFor(admin, { tlpClearance: 2 });
    expect((await failure(t.kit.observables.create(amber, onCase(), { dataType: "ip", data: "192.0.2.1" }))).code).toBe("tlp_restricted");
    const low = (await t.kit.cases.create(admin, { title: "Low", severity: 1, tlp: 1 })).id;
    expect((await failure(t.kit.observables.create(amber, onCase(low), { dataType: "ip", data: "192.0.2.1", tlp: 3 }))).code).toBe("tlp_restricted");
    const hidden = await t.kit.observables.create(admin, onCase(low), { dataType: "ip", data: "192.0.2.9", tlp: 4, message: "RED note" });
    // The RED record of the value does not answer for it: the caller gets a record of their own,
    // exactly as for a value the case never had (a 403 here would tell the RED one exists).
    const beside = await t.kit.observables.create(amber, onCase(low), { dataType: "ip", data: "192.0.2.9" });
    expect(beside).toMatchObject({ deduplicated: false, tlp: 1, message: null });
    expect(beside.id).not.toBe(hidden.id);
    expect(await t.kit.observables.get(admin, hidden.id)).toMatchObject({ tlp: 4, message: "RED note" });
    // A second report at the caller's level merges into their own record.
    expect(await t.kit.observables.create(amber, onCase(low), { dataType: "ip", data: "192.0.2.9", ioc: true })).toMatchObject({ id: beside.id, deduplicated: true, ioc: true });
    const denied = (await t.kit.storage.read((tx) => tx.tlpAudit.list(t.organizationId, { outcome: "denied" }, { limit: 10 }))).map((e) => [e.resourceType, e.action]);
    expect(denied).toEqual([["case", "edit"]]);
    // What the principal may see it can add.
    expect((await t.kit.observables.create(amber, onCase(low), { dataType: "ip", data: "192.0.2.1" })).tlp).toBe(1);
  });

  it("TLP: reads of an observable or under a parent above the clearance are 403; lists leave them out", async () => {
    const amber = principalFor(admin, { tlpClearance: 2 });
    const low = (await t.kit.cases.create(admin, { title: "Low", severity: 1, tlp: 1 })).id;
    const inHighCase = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1", tlp: 0 });
    const red = await t.kit.observables.create(admin, onCase(low), { dataType: "ip", data: "192.0.2.1", tlp: 4 });
    const green = await t.kit.observables.create(admin, onCase(low), { dataType: "ip", data: "192.0.2.2", tlp: 1 });
    expect((await failure(t.kit.observables.get(amber, inHighCase.id))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.observables.get(amber, red.id))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.observables.update(amber, red.id, { ioc: true }))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.observables.delete(amber, red.id))).code).toBe("tlp_restricted");
    expect((await failure(t.kit.observables.listOf(amber, onCase(), {}))).code).toBe("tlp_restricted");
    expect((await t.kit.observables.list(amber, { data: "192.0.2.1" })).data).toEqual([]);
    expect((await t.kit.observables.list(amber, {})).data.map((o) => o.id)).toEqual([green.id]);
    expect((await t.kit.observables.list(admin, { data: "192.0.2.1" })).data.map((o) => o.id)).toEqual([red.id, inHighCase.id]);
    // Raising above one's own clearance is refused too.
    expect((await failure(t.kit.observables.update(amber, green.id, { tlp: 3 }))).code).toBe("tlp_restricted");
  });

  it("another organization's ids are 404 on every operation, and their lists stay apart", async () => {
    const other = await addOrganization(t.kit, "Other SOC");
    const mine = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1" });
    for (const attempt of [
      t.kit.observables.get(other.admin, mine.id),
      t.kit.observables.update(other.admin, mine.id, { ioc: true }),
      t.kit.observables.delete(other.admin, mine.id),
      t.kit.observables.create(other.admin, onCase(), { dataType: "ip", data: "192.0.2.1" }),
      t.kit.observables.listOf(other.admin, onCase(), {}),
    ]) {
      expect((await failure(attempt)).code).toBe("not_found");
    }
    expect((await t.kit.observables.list(other.admin, { data: "192.0.2.1" })).data).toEqual([]);
    expect((await t.kit.observables.get(admin, mine.id)).ioc).toBe(false);
  });

  it("scopes: reading needs observables:read, changing needs observables:write", async () => {
    const readOnly = principalFor(admin, { scopes: new Set<Scope>(["observables:read", "cases:read", "cases:write"]) });
    const writeOnly = principalFor(admin, { scopes: new Set<Scope>(["observables:write"]) });
    const mine = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1" });
    expect((await failure(t.kit.observables.create(readOnly, onCase(), { dataType: "ip", data: "192.0.2.2" }))).code).toBe("missing_scope");
    expect((await failure(t.kit.observables.update(readOnly, mine.id, { ioc: true }))).code).toBe("missing_scope");
    expect((await failure(t.kit.observables.delete(readOnly, mine.id))).code).toBe("missing_scope");
    expect((await failure(t.kit.observables.get(writeOnly, mine.id))).code).toBe("missing_scope");
    expect((await failure(t.kit.observables.list(writeOnly, {}))).code).toBe("missing_scope");
    expect((await t.kit.observables.get(readOnly, mine.id)).id).toBe(mine.id);
  });

  it("update changes the given fields, audits a TLP change as such, and refuses dataType and data", async () => {
    const mine = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1", message: "first" });
    t.clock.advance(1000);
    const after = await t.kit.observables.update(admin, mine.id, { tlp: 1, sighted: true, message: null, tags: [{ name: "seen" }] });
    expect(after).toMatchObject({ tlp: 1, sighted: true, message: null, tags: [{ name: "seen" }], data: "192.0.2.1", updatedAt: "2026-03-01T12:00:01.000Z" });
    expect(await t.kit.observables.get(admin, mine.id)).toEqual(after);
    // The case is AMBER+STRICT: the observable's own marking changed, its effective TLP did not.
    expect((await tlpLog())[1]).toMatchObject({ action: "change", tlpBefore: 3, tlpAfter: 3 });
    const [event] = (await events()).filter((e) => e.name === "observable.updated");
    expect(event).toMatchObject({ resourceId: mine.id, tlp: 3, payload: { tlp: 1 } });
    for (const body of [{ data: "192.0.2.2" }, { dataType: "other" }, {}, { deletedAt: null }]) {
      expect((await failure(t.kit.observables.update(admin, mine.id, body))).code).toBe("validation_failed");
    }
  });

  it("delete is soft: the record leaves every read and list, keeps its data, and the value may come back", async () => {
    const mine = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1" });
    t.clock.advance(1000);
    const deleted = await t.kit.observables.delete(admin, mine.id);
    expect(deleted).toMatchObject({ id: mine.id, data: "192.0.2.1", deletedAt: "2026-03-01T12:00:01.000Z", deletedBy: admin.userId });
    expect((await failure(t.kit.observables.get(admin, mine.id))).code).toBe("not_found");
    expect((await failure(t.kit.observables.delete(admin, mine.id))).code).toBe("not_found");
    expect((await failure(t.kit.observables.update(admin, mine.id, { ioc: true }))).code).toBe("not_found");
    expect((await t.kit.observables.list(admin, {})).data).toEqual([]);
    expect((await t.kit.observables.listOf(admin, onCase(), {})).data).toEqual([]);
    expect((await events())[0]).toMatchObject({ name: "observable.deleted", resourceId: mine.id, payload: { deletedBy: admin.userId } });
    expect((await tlpLog())[0]).toMatchObject({ action: "delete", resourceId: mine.id });
    const again = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1" });
    expect(again).toMatchObject({ deduplicated: false });
    expect(again.id).not.toBe(mine.id);
  });

  it("lists: filters by the fields, data compared after normalisation, cursor pages, unknown parameters refused", async () => {
    const other = (await t.kit.cases.create(admin, { title: "Other", severity: 1 })).id;
    const a = await t.kit.observables.create(admin, onCase(), { dataType: "domain", data: "evil.example", ioc: true, tags: [{ name: "c2" }] });
    const b = await t.kit.observables.create(admin, onCase(other), { dataType: "domain", data: "evil.example" });
    const c = await t.kit.observables.create(admin, onCase(other), { dataType: "hash", data: "d41d8cd98f00b204e9800998ecf8427e", sighted: true });
    const ids = async (query: Record<string, unknown>) => (await t.kit.observables.list(admin, query)).data.map((o) => o.id);
    expect(await ids({ data: "EVIL.example." })).toEqual([b.id, a.id]);
    expect(await ids({ data: "D41D8CD98F00B204E9800998ECF8427E" })).toEqual([c.id]);
    expect(await ids({ caseId: caseId })).toEqual([a.id]);
    expect(await ids({ caseId: [caseId, other] })).toEqual([c.id, b.id, a.id]);
    expect(await ids({ ioc: "true" })).toEqual([a.id]);
    expect(await ids({ sighted: "true" })).toEqual([c.id]);
    expect(await ids({ tag: "c2" })).toEqual([a.id]);
    expect(await ids({ dataType: "hash" })).toEqual([c.id]);
    expect(await ids({ tlp: "2" })).toEqual([c.id, b.id]);
    expect(await ids({ createdBefore: "2026-03-01T12:00:00.000Z" })).toEqual([]);
    const first = await t.kit.observables.list(admin, { limit: "2" });
    expect(first.data).toHaveLength(2);
    const rest = await t.kit.observables.list(admin, { limit: "2", cursor: first.nextCursor! });
    expect([...first.data, ...rest.data].map((o) => o.id)).toEqual([c.id, b.id, a.id]);
    expect(rest.nextCursor).toBeNull();
    for (const bad of [{ color: "red" }, { ioc: "yes" }, { limit: "0" }, { caseId: "nope" }, { cursor: "garbage" }]) {
      expect((await failure(t.kit.observables.list(admin, bad))).code).toBe("validation_failed");
    }
    expect((await failure(t.kit.observables.listOf(admin, onCase(), { caseId }))).paths).toEqual(["caseId"]);
  });

  it("AMBER+STRICT and RED observables seen in a list are written to the TLP audit log, at their effective TLP", async () => {
    const red = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1", tlp: 4 });
    // GREEN itself, but in the AMBER+STRICT case: seen at AMBER+STRICT.
    const green = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.2", tlp: 1 });
    const low = (await t.kit.cases.create(admin, { title: "Low", severity: 1, tlp: 1 })).id;
    await t.kit.observables.create(admin, onCase(low), { dataType: "ip", data: "192.0.2.3", tlp: 1 });
    const before = (await tlpLog()).length;
    await t.kit.observables.list(admin, {});
    const added = (await tlpLog()).slice(0, (await tlpLog()).length - before);
    expect(added.map((e) => [e.resourceId, e.action, e.tlpBefore])).toEqual([
      [red.id, "view", 4],
      [green.id, "view", 3],
    ]);
  });

  describe("copyObservablesToCase", () => {
    it("copies an alert's live observables to the case, deduplicating against the case's own", async () => {
      const alertId = t.addAlert(t.organizationId);
      const at = t.clock.now().toISOString();
      const base = { organizationId: t.organizationId, caseId: null, alertId, tlp: 2, pap: 2, ioc: false, sighted: false, tags: [], message: null, customFields: {}, createdAt: at, updatedAt: at, createdBy: null, deletedAt: null, deletedBy: null };
      const onAlert: Observable[] = [
        { ...base, id: t.kit.deps.ids.next("obs"), dataType: "ip", data: "192.0.2.1", ioc: true, tags: [{ name: "c2" }] },
        { ...base, id: t.kit.deps.ids.next("obs"), dataType: "domain", data: "evil.example" },
        { ...base, id: t.kit.deps.ids.next("obs"), dataType: "hash", data: "d41d8cd98f00b204e9800998ecf8427e" },
        { ...base, id: t.kit.deps.ids.next("obs"), dataType: "mail", data: "gone@example.com", deletedAt: at, deletedBy: admin.userId },
      ];
      await t.kit.storage.transaction(async (tx) => {
        for (const o of onAlert) await tx.observables.insert(o);
      });
      const existing = await t.kit.observables.create(admin, onCase(), { dataType: "ip", data: "192.0.2.1" });
      const same = await t.kit.observables.create(admin, onCase(), { dataType: "domain", data: "evil.example" });
      const hidden = await t.kit.observables.create(admin, onCase(), { dataType: "hash", data: "d41d8cd98f00b204e9800998ecf8427e", tlp: 4 });
      const amber = principalFor(admin, { tlpClearance: 3 });
      t.clock.advance(5000);

      const result = await t.kit.storage.transaction((tx) => copyObservablesToCase(t.kit.deps, tx, amber, alertId, caseId, t.clock.now(), { bulkRequestId: "bulk_01kaaaaaaaaaaaaaaaaaaaaaaa" }));
      // The case's RED record of the hash is above the caller: the copy goes beside it, unmerged.
      expect(result.created.map((o) => [o.dataType, o.tlp])).toEqual([["hash", 2]]);
      expect(result.merged.map((o) => [o.id, o.ioc, o.tags])).toEqual([[existing.id, true, [{ name: "c2" }]]]);
      expect(result.unchanged.map((o) => o.id)).toEqual([same.id]);
      expect(result.skipped).toEqual([]);
      expect((await t.kit.observables.get(admin, hidden.id)).tlp).toBe(4);
      expect(await events()).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: "observable.updated", resourceId: existing.id, bulkRequestId: "bulk_01kaaaaaaaaaaaaaaaaaaaaaaa" })]),
      );

      // Into a fresh case everything live is created, the alert's own rows untouched.
      const fresh = (await t.kit.cases.create(admin, { title: "Fresh", severity: 2 })).id;
      const copied = await t.kit.storage.transaction((tx) => copyObservablesToCase(t.kit.deps, tx, admin, alertId, fresh, t.clock.now()));
      expect(copied.created.map((o) => [o.dataType, o.data, o.caseId, o.alertId, o.createdBy])).toEqual([
        ["ip", "192.0.2.1", fresh, null, admin.userId],
        ["domain", "evil.example", fresh, null, admin.userId],
        ["hash", "d41d8cd98f00b204e9800998ecf8427e", fresh, null, admin.userId],
      ]);
      expect(copied.created[0]).toMatchObject({ ioc: true, tags: [{ name: "c2" }], tlp: 2 });
      expect(await t.kit.storage.read((tx) => tx.observables.listByAlert(t.organizationId, alertId))).toEqual(onAlert.slice(0, 3));
    });

    it("leaves on the alert, unmentioned, what the principal may not read", async () => {
      const alertId = t.addAlert(t.organizationId);
      const at = t.clock.now().toISOString();
      const base = { organizationId: t.organizationId, caseId: null, alertId, pap: 2, ioc: false, sighted: false, tags: [], message: null, customFields: {}, createdAt: at, updatedAt: at, createdBy: null, deletedAt: null, deletedBy: null };
      const green = { ...base, id: t.kit.deps.ids.next("obs"), dataType: "ip", data: "192.0.2.5", tlp: 1 };
      const red = { ...base, id: t.kit.deps.ids.next("obs"), dataType: "ip", data: "192.0.2.6", tlp: 4 };
      await t.kit.storage.transaction(async (tx) => {
        for (const o of [green, red]) await tx.observables.insert(o);
      });
      const amber = principalFor(admin, { tlpClearance: 3 });
      const result = await t.kit.storage.transaction((tx) => copyObservablesToCase(t.kit.deps, tx, amber, alertId, caseId, t.clock.now()));
      expect(result.created.map((o) => o.data)).toEqual(["192.0.2.5"]);
      expect(JSON.stringify(result)).not.toContain(red.id);
      expect(JSON.stringify(result)).not.toContain("192.0.2.6");
      expect((await t.kit.observables.list(admin, { data: "192.0.2.6" })).data.map((o) => o.id)).toEqual([red.id]);
    });
  });
});
