/**
 * Webhook subscriptions to audit events (`audit.<action>`, `audit.*`): fan-out moves each
 * organization's audit events into its outbox behind a persisted cursor, and the delivery is the
 * audit event as the subscription's grant may read it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { CaseKit, Principal } from "../../core/index.js";
import type { OutboundRequest, OutboundResponse, OutboundTransport } from "../../core/ports/outbound.js";
import { createCaseKit, createSealer, ManualClock, verifySignature } from "../../core/index.js";
import { redactedValue } from "../../core/audit/redact.js";
import { createDispatcher } from "../../core/webhooks/dispatcher.js";
import { subscribedTo, webhookEventPattern } from "../../core/webhooks/schema.js";
import { addKey, addOrganization, addUser, keyHashSecret } from "../helpers/kit.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

const unseal = createSealer(keyHashSecret).unseal;

function recordingTransport(): OutboundTransport & { sent: OutboundRequest[] } {
  const sent: OutboundRequest[] = [];
  return {
    sent,
    async send(request): Promise<OutboundResponse> {
      sent.push(request);
      return { status: 200, retryAfter: null, body: "ok", durationMs: 1 };
    },
  };
}

const bodies = (sent: readonly OutboundRequest[], url: string) => sent.filter((r) => r.url === url).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });

describe("webhook subscriptions to audit events", () => {
  let kit: CaseKit;
  let clock: ManualClock;
  let admin: Principal;
  let organizationId: string;
  beforeEach(async () => {
    const storage = createSqliteStorage({ path: ":memory:" });
    await storage.migrate();
    clock = new ManualClock("2026-03-01T12:00:00.000Z");
    kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } });
    const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
    admin = await kit.authenticateKey(init.apiKey);
    organizationId = init.organization.id;
  });

  it("accepts audit.<action> and audit.*, refuses other audit shapes; * does not take audit kinds", async () => {
    const ok = await kit.webhooks.create(admin, { name: "a", url: "https://hooks.example.com/a", events: ["audit.key.created", "audit.*", "case.*"] });
    expect(ok.events).toEqual(["audit.key.created", "audit.*", "case.*"]);
    for (const events of [["audit.key"], ["audit.key.*"], ["audit.Key.created"], ["audit.key.created.x"]]) {
      await expect(kit.webhooks.create(admin, { name: "b", url: "https://hooks.example.com/b", events })).rejects.toMatchObject({ code: "validation_failed" });
    }
    expect(subscribedTo(["*"], "audit.key.created")).toBe(false);
    expect(subscribedTo(["key.*"], "audit.key.created")).toBe(false);
    expect(subscribedTo(["audit.*"], "audit.key.created")).toBe(true);
    expect(subscribedTo(["audit.key.created"], "audit.key.created")).toBe(true);
    expect(subscribedTo(["audit.key.revoked"], "audit.key.created")).toBe(false);
  });

  it("the event pattern (written without lookahead) takes any resource name but audit for record events", () => {
    // Every name of up to four letters from an alphabet around "audit", and names around it.
    const letters = ["a", "u", "d", "i", "t", "b", "z", "_"];
    let names = [""];
    for (let n = 0; n < 4; n++) names = [...names, ...names.flatMap((p) => letters.map((c) => p + c))];
    names = [...new Set([...names, "audit", "audits", "audit_x", "auditz", "audiz", "audix"])];
    const isName = (s: string) => /^[a-z][a-z_]*$/.test(s);
    for (const name of names) {
      for (const tail of ["*", "created", "key.created"]) {
        const event = `${name}.${tail}`;
        const expected = name === "audit" ? tail !== "created" : isName(name) && tail !== "key.created";
        expect(webhookEventPattern.test(event), event).toBe(expected);
      }
    }
    expect(webhookEventPattern.test("*")).toBe(true);
  });

  it("delivers one signed audit.key.created per key created after the subscription, its payload the audit event; other organizations' never", async () => {
    const before = await kit.keys.create(admin, { name: "before", scopes: ["cases:read"] });
    const hook = await kit.webhooks.create(admin, { name: "audit", url: "https://hooks.example.com/audit", events: ["audit.key.created"] });
    const other = await addOrganization(kit, "Other SOC");
    await kit.webhooks.create(other.admin, { name: "theirs", url: "https://hooks.example.com/theirs", events: ["audit.*"] });
    const transport = recordingTransport();
    const dispatcher = createDispatcher(kit.deps, { transport, unseal, random: () => 0 });
    await dispatcher.step(); // a new subscription starts from the head of the log

    const created = await kit.keys.create(admin, { name: "SIEM", scopes: ["cases:read"] });
    await kit.keys.create(other.admin, { name: "theirs", scopes: ["cases:read"] });
    await dispatcher.step();
    await dispatcher.step();

    const mine = transport.sent.filter((r) => r.url === hook.url);
    expect(mine).toHaveLength(1);
    const body = JSON.parse(mine[0]!.body) as { type: string; data: Record<string, unknown> };
    const [audit] = await kit.storage.read((tx) => tx.audit.list(organizationId, { limit: 1 }, { action: ["key.created"] }));
    expect(audit!.target.id).toBe(created.id);
    expect(body.type).toBe("audit.key.created");
    expect(body.data).toEqual(JSON.parse(JSON.stringify(audit)));
    expect(body.data.organizationId).toBe(organizationId);
    expect(JSON.stringify(body)).not.toContain(before.id);
    expect(JSON.stringify(body)).not.toContain(created.key);
    expect(verifySignature(hook.secret, mine[0]!.headers as never, mine[0]!.body, clock.now())).toBe(true);
    // The other organization's subscription got its own key's event only.
    const theirs = bodies(transport.sent, "https://hooks.example.com/theirs");
    expect(theirs.map((b) => b.data.organizationId)).toEqual(theirs.map(() => other.organizationId));
    expect(theirs.some((b) => b.type === "audit.key.created")).toBe(true);

    // Nothing doubled on later rounds.
    await dispatcher.step();
    expect(transport.sent.filter((r) => r.url === hook.url)).toHaveLength(1);
  });

  it("redacts the changes above the grant's clearance; a grant without audit:read gets the id only", async () => {
    const owner = await addUser(kit, organizationId, { role: "admin", tlpClearance: 4 });
    const low = await addKey(kit, owner, { scopes: ["webhooks:write", "webhooks:read", "audit:read"], tlpClearance: 1 });
    const noScope = await addKey(kit, owner, { scopes: ["webhooks:write", "webhooks:read"], tlpClearance: 4 });
    const lowHook = await kit.webhooks.create(await kit.authenticateKey(low.secret), { name: "low", url: "https://hooks.example.com/low", events: ["audit.case.updated"] });
    await kit.webhooks.create(await kit.authenticateKey(noScope.secret), { name: "noscope", url: "https://hooks.example.com/noscope", events: ["audit.case.updated"] });
    await kit.webhooks.create(admin, { name: "full", url: "https://hooks.example.com/full", events: ["audit.*"] });
    const transport = recordingTransport();
    const dispatcher = createDispatcher(kit.deps, { transport, unseal, random: () => 0 });
    await dispatcher.step();

    const red = await kit.cases.create(admin, { title: "secret title", severity: 2, tlp: 4 });
    await kit.cases.update(admin, red.id, { title: "still secret" });
    await dispatcher.step();
    await dispatcher.step();

    const full = bodies(transport.sent, "https://hooks.example.com/full").find((b) => b.type === "audit.case.updated")!;
    expect(full.data.changes).toContainEqual({ path: "title", before: "secret title", after: "still secret" });
    const [lowBody] = bodies(transport.sent, lowHook.url);
    expect(lowBody!.data).toMatchObject({ id: full.data.id, action: "case.updated", target: { type: "case", id: red.id } });
    expect(lowBody!.data.changes).toContainEqual({ path: "title", before: redactedValue, after: redactedValue });
    expect(JSON.stringify(lowBody)).not.toContain("secret title");
    const [noScopeBody] = bodies(transport.sent, "https://hooks.example.com/noscope");
    expect(noScopeBody!.data).toEqual({ id: full.data.id, resourceType: "audit_event", tlp: 4, redacted: true });
  });

  it("a subscription made after a time without any starts from the head: nothing from before it is replayed", async () => {
    const transport = recordingTransport();
    const dispatcher = createDispatcher(kit.deps, { transport, unseal, random: () => 0 });
    const first = await kit.webhooks.create(admin, { name: "first", url: "https://hooks.example.com/first", events: ["audit.*"] });
    await dispatcher.step();
    await kit.keys.create(admin, { name: "seen", scopes: ["cases:read"] });
    await dispatcher.step();
    expect(bodies(transport.sent, first.url).map((b) => b.type)).toContain("audit.key.created");
    await kit.webhooks.update(admin, first.id, { events: ["case.*"] });
    await dispatcher.step(); // no audit subscription left: the cursor is cleared
    const missed = await kit.keys.create(admin, { name: "missed", scopes: ["cases:read"] });
    await dispatcher.step();
    const second = await kit.webhooks.create(admin, { name: "second", url: "https://hooks.example.com/second", events: ["audit.key.created"] });
    await dispatcher.step();
    const after = await kit.keys.create(admin, { name: "after", scopes: ["cases:read"] });
    await dispatcher.step();
    await dispatcher.step();
    const received = bodies(transport.sent, second.url);
    expect(received.map((b) => (b.data.target as { id: string }).id)).toEqual([after.id]);
    expect(JSON.stringify(transport.sent)).not.toContain(missed.id);
  });
});
