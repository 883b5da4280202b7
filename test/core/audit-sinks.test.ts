import { beforeEach, describe, expect, it } from "vitest";
import type { Principal } from "../../core/index.js";
import { CaseKitError } from "../../core/index.js";
import { redactedValue } from "../../core/audit/redact.js";
import type { TestKit } from "../helpers/kit.js";
import { addKey, addOrganization, addUser, makeTestKit, principalFor } from "../helpers/kit.js";

const target = "tls://siem.example.com:6514";

async function refusal(promise: Promise<unknown>): Promise<{ code: string; paths: string[] }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof CaseKitError)) throw new Error(`expected a CaseKitError, got ${String(error)}`);
  return { code: error.code, paths: (error.errors ?? []).map((e) => e.path) };
}

describe("audit sinks (core)", () => {
  let t: TestKit;
  beforeEach(async () => {
    t = await makeTestKit();
  });

  it("create stores the config with its defaults and the creator's grant, audits it, and starts at the head: its own creation is the first event it reads", async () => {
    const before = await t.kit.storage.read((tx) => tx.audit.head(t.organizationId));
    const sink = await t.kit.auditSinks.create(t.admin, { name: "SIEM", config: { target } });
    expect(sink).toMatchObject({ id: expect.stringMatching(/^snk_/), status: "active", tlpClearance: 4, config: { target, facility: 13, enterpriseId: "32473" } });
    const stored = (await t.kit.storage.read((tx) => tx.auditSinks.findById(t.organizationId, sink.id)))!;
    expect(stored.grant).toEqual({ keyId: t.admin.keyId, tlpClearance: 4, scopes: [...t.admin.scopes] });
    const cursor = await t.kit.auditSinkDelivery.cursor(t.organizationId, sink.id);
    expect(cursor).toBe(before.seq);
    const events = await t.kit.auditSinkDelivery.eventsAfter(stored, cursor, 10);
    expect(events.map((e) => [e.action, e.target.id])).toEqual([["audit_sink.created", sink.id]]);
    expect(events[0]!.seq).toBe(before.seq + 1);
  });

  it("refuses a target the SSRF rule refuses, tls options on tcp and a CA that is no certificate, by their path in the body, and stores nothing", async () => {
    expect(await refusal(t.kit.auditSinks.create(t.admin, { name: "Local", config: { target: "tcp://127.0.0.1:514" } }))).toEqual({ code: "invalid_sink_config", paths: ["config.target"] });
    expect(await refusal(t.kit.auditSinks.create(t.admin, { name: "Meta", config: { target: "tcp://169.254.169.254:514" } }))).toEqual({ code: "invalid_sink_config", paths: ["config.target"] });
    expect(await refusal(t.kit.auditSinks.create(t.admin, { name: "Tcp", config: { target: "tcp://siem.example.com:514", servername: "x", ca: "nope" } }))).toEqual({
      code: "invalid_sink_config",
      // tls-only options on tcp, then the CA that does not parse.
      paths: ["config.ca", "config.servername", "config.ca"],
    });
    expect(await refusal(t.kit.auditSinks.create(t.admin, { name: "Bad", config: { target: "udp://siem.example.com:514" } }))).toEqual({ code: "validation_failed", paths: ["config.target"] });
    expect((await t.kit.auditSinks.list(t.admin, {})).data).toEqual([]);
  });

  it("reads need audit:read; changes need audit:manage, and creating needs audit:read too", async () => {
    const manageOnly = principalFor(t.admin, { scopes: new Set(["audit:manage"]) });
    const readOnly = principalFor(t.admin, { scopes: new Set(["audit:read"]) });
    expect((await refusal(t.kit.auditSinks.create(manageOnly, { name: "S", config: { target } }))).code).toBe("missing_scope");
    expect((await refusal(t.kit.auditSinks.create(readOnly, { name: "S", config: { target } }))).code).toBe("missing_scope");
    const sink = await t.kit.auditSinks.create(t.admin, { name: "S", config: { target } });
    expect((await refusal(t.kit.auditSinks.list(manageOnly, {}))).code).toBe("missing_scope");
    expect((await refusal(t.kit.auditSinks.update(readOnly, sink.id, { status: "paused" }))).code).toBe("missing_scope");
    expect((await refusal(t.kit.auditSinks.delete(readOnly, sink.id))).code).toBe("missing_scope");
    expect((await t.kit.auditSinks.get(readOnly, sink.id)).id).toBe(sink.id);
  });

  it("another organization's sink is not found, for reads and changes alike", async () => {
    const sink = await t.kit.auditSinks.create(t.admin, { name: "S", config: { target } });
    const other = await addOrganization(t.kit, "Other SOC");
    for (const attempt of [t.kit.auditSinks.get(other.admin, sink.id), t.kit.auditSinks.update(other.admin, sink.id, { status: "paused" }), t.kit.auditSinks.delete(other.admin, sink.id)]) {
      expect((await refusal(attempt)).code).toBe("not_found");
    }
    expect((await t.kit.auditSinks.list(other.admin, {})).data).toEqual([]);
  });

  it("nobody redirects or resumes a sink holding more than they do; pausing and deleting only stop data", async () => {
    const sink = await t.kit.auditSinks.create(t.admin, { name: "S", config: { target } });
    const lower = principalFor(t.admin, { tlpClearance: 2 });
    expect((await refusal(t.kit.auditSinks.update(lower, sink.id, { config: { target: "tcp://elsewhere.example.com:514" } }))).code).toBe("tlp_restricted");
    expect((await t.kit.auditSinks.update(lower, sink.id, { status: "paused" })).status).toBe("paused");
    expect((await refusal(t.kit.auditSinks.update(lower, sink.id, { status: "active" }))).code).toBe("tlp_restricted");
    const moved = await t.kit.auditSinks.update(t.admin, sink.id, { status: "active", config: { target: "tcp://elsewhere.example.com:514", facility: 16 } });
    expect(moved).toMatchObject({ status: "active", config: { target: "tcp://elsewhere.example.com:514", facility: 16, enterpriseId: "32473" } });
    const events = (await t.kit.audit.list(t.admin, { targetId: sink.id })).data;
    expect(events.map((e) => e.action)).toEqual(["audit_sink.updated", "audit_sink.updated", "audit_sink.created"]);
    expect(events[0]!.changes).toEqual(
      expect.arrayContaining([
        { path: "status", before: "paused", after: "active" },
        { path: "config.target", before: target, after: "tcp://elsewhere.example.com:514" },
      ]),
    );
    await t.kit.auditSinks.delete(lower, sink.id);
    expect((await t.kit.audit.list(t.admin, { targetId: sink.id })).data[0]!.action).toBe("audit_sink.deleted");
    expect(await t.kit.auditSinkDelivery.cursor(t.organizationId, sink.id)).toBe(0);
    expect((await t.kit.auditSinkDelivery.activeSinks()).map((s) => s.id)).not.toContain(sink.id);
  });

  it("delivers as its grant: values above the creator key's clearance are redacted, and nothing goes out while the key is suspended", async () => {
    const owner = await addUser(t.kit, t.organizationId, { role: "admin", tlpClearance: 4 });
    const { secret, key } = await addKey(t.kit, owner, { scopes: ["audit:read", "audit:manage"], tlpClearance: 2 });
    const creator: Principal = await t.kit.authenticateKey(secret);
    const created = await t.kit.auditSinks.create(creator, { name: "Amber SIEM", config: { target } });
    expect(created.tlpClearance).toBe(2);
    const sink = (await t.kit.storage.read((tx) => tx.auditSinks.findById(t.organizationId, created.id)))!;
    const cursor = await t.kit.auditSinkDelivery.cursor(t.organizationId, sink.id);

    const red = await t.kit.cases.create(t.admin, { title: "Red case", severity: 3, tlp: 4 });
    await t.kit.cases.update(t.admin, red.id, { title: "Red case, renamed" });
    const events = await t.kit.auditSinkDelivery.eventsAfter(sink, cursor, 50);
    const update = events.find((e) => e.action === "case.updated" && e.target.id === red.id)!;
    expect(update.changes.find((c) => c.path === "title")).toEqual({ path: "title", before: redactedValue, after: redactedValue });
    // The admin reading the same event sees the values.
    const full = (await t.kit.audit.list(t.admin, { targetId: red.id, action: ["case.updated"] })).data[0]!;
    expect(full.changes.find((c) => c.path === "title")).toEqual({ path: "title", before: "Red case", after: "Red case, renamed" });

    await t.kit.storage.transaction((tx) => tx.apiKeys.update({ ...key, status: "suspended" }));
    expect(await t.kit.auditSinkDelivery.eventsAfter(sink, cursor, 50)).toEqual([]);
  });
});
