import fc from "fast-check";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNodeTransport } from "../../adapters/outbound/node-transport.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { CaseKit, Principal, Storage } from "../../core/index.js";
import { createCaseKit, ManualClock, parseWebhookAllowlist } from "../../core/index.js";
import type { Dispatcher } from "../../core/webhooks/dispatcher.js";
import { createDispatcher } from "../../core/webhooks/dispatcher.js";
import { createSealer } from "../../core/webhooks/seal.js";
import { addOrganization, addUser, keyHashSecret } from "../helpers/kit.js";
import type { Answer, ReceivedRequest, Receiver } from "../helpers/receiver.js";
import { startReceiver } from "../helpers/receiver.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { unitWith } from "../helpers/unit-with.js";

/**
 * The dispatcher against real HTTP receivers on loopback (allowed explicitly), with a manual
 * clock that starts at the real time: receivers verify with the standardwebhooks library, which
 * refuses timestamps more than five minutes from its own clock.
 */
interface World {
  kit: CaseKit;
  clock: ManualClock;
  admin: Principal;
  organizationId: string;
  dispatcher: Dispatcher;
}

async function makeWorld(allowlist = "127.0.0.1"): Promise<World> {
  const storage = createSqliteStorage({ path: ":memory:" });
  await storage.migrate();
  const clock = new ManualClock(new Date());
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret, webhookAllowlist: "127.0.0.1" } });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: `admin-${Math.random()}@acme.test` });
  const admin = await kit.authenticateKey(init.apiKey);
  // Jitter fixed at 0: each delay is exactly half the exponential backoff.
  const dispatcher = kit.createDispatcher({ transport: createNodeTransport({ allowlist: parseWebhookAllowlist(allowlist) }), random: () => 0 });
  return { kit, clock, admin, organizationId: init.organization.id, dispatcher };
}

const receivers: Receiver[] = [];
async function receiver(answer?: (request: ReceivedRequest, index: number) => Answer): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function deliveriesOf(w: World, webhookId: string) {
  return (await w.kit.webhooks.listDeliveries(w.admin, webhookId, {})).data;
}

describe("the webhook dispatcher, delivering to a loopback receiver", () => {
  let w: World;
  beforeEach(async () => {
    w = await makeWorld();
  });

  it("signs every delivery so the standardwebhooks library verifies it; one changed byte of body, id or timestamp fails", async () => {
    const target = await receiver();
    const hook = await w.kit.webhooks.create(w.admin, {
      name: "SIEM",
      url: target.url(),
      events: ["case.created"],
      authType: "bearer",
      authConfig: { token: "receiver-token" },
      headers: { "x-tenant": "acme" },
    });
    const created = await w.kit.cases.create(w.admin, { title: "Phishing wave Ü", severity: 3, tlp: 2 });
    expect(await w.dispatcher.step()).toEqual({ events: 2, attempts: 1 }); // webhook.created and case.created; one matches

    expect(target.received).toHaveLength(1);
    const [request] = target.received;
    const headers = { "webhook-id": String(request!.headers["webhook-id"]), "webhook-timestamp": String(request!.headers["webhook-timestamp"]), "webhook-signature": String(request!.headers["webhook-signature"]) };
    const payload = new StandardWebhook(hook.secret).verify(request!.body, headers) as { type: string; data: { id: string; title: string } };
    expect(payload.type).toBe("case.created");
    expect(payload.data).toMatchObject({ id: created.id, title: "Phishing wave Ü" });
    expect(request!.method).toBe("POST");
    expect(request!.headers.authorization).toBe("Bearer receiver-token");
    expect(request!.headers["x-tenant"]).toBe("acme");
    expect(request!.headers["content-type"]).toBe("application/json");

    const verifier = new StandardWebhook(hook.secret);
    const flip = (text: string, at: number) => text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ 1) + text.slice(at + 1);
    expect(() => verifier.verify(flip(request!.body, 10), headers)).toThrow();
    expect(() => verifier.verify(request!.body, { ...headers, "webhook-id": flip(headers["webhook-id"], 5) })).toThrow();
    expect(() => verifier.verify(request!.body, { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) + 1) })).toThrow();

    const [delivery] = await deliveriesOf(w, hook.id);
    expect(delivery).toMatchObject({ id: headers["webhook-id"], status: "delivered", eventName: "case.created" });
    expect(delivery!.attempts).toHaveLength(1);
    expect(delivery!.attempts[0]).toMatchObject({ attempt: 1, responseStatus: 200, errorClass: null });
  });

  it("delivers what is recorded while the subscription is active: not what came before it, nor while it was disabled", async () => {
    const target = await receiver();
    const before = await w.kit.cases.create(w.admin, { title: "Before the subscription", severity: 2 });
    const hook = await w.kit.webhooks.create(w.admin, { name: "SIEM", url: target.url(), events: ["case.created"] });
    const during = await w.kit.cases.create(w.admin, { title: "While active", severity: 2 });
    await w.kit.webhooks.update(w.admin, hook.id, { status: "disabled" });
    const paused = await w.kit.cases.create(w.admin, { title: "While disabled", severity: 2 });
    await w.kit.webhooks.update(w.admin, hook.id, { status: "active" });
    const again = await w.kit.cases.create(w.admin, { title: "Active again", severity: 2 });
    // The dispatcher runs only now: what decides is whether a subscription was active when each case was recorded.
    while ((await w.dispatcher.step()).events > 0);
    const delivered = target.received.map((request) => (JSON.parse(request.body) as { data: { id: string } }).data.id);
    expect(delivered.sort()).toEqual([during.id, again.id].sort());
    expect(delivered).not.toContain(before.id);
    expect(delivered).not.toContain(paused.id);
  });

  it("retries a 500 on the backoff schedule, with the same webhook-id, and stops after maxRetries + 1 attempts", async () => {
    const target = await receiver(() => ({ status: 500, body: "boom" }));
    const hook = await w.kit.webhooks.create(w.admin, { name: "Flaky", url: target.url(), events: ["case.created"], maxRetries: 3, retryDelayMs: 1_000 });
    await w.kit.cases.create(w.admin, { title: "Retry me", severity: 2 });
    const start = w.clock.now().getTime();

    await w.dispatcher.step();
    expect(target.received).toHaveLength(1);
    // Backoff doubles from retryDelayMs, with equal jitter: random 0 gives half of it.
    for (const [wait, expected] of [[500, 2], [1_000, 3], [2_000, 4]] as const) {
      w.clock.advance(wait - 1);
      await w.dispatcher.step();
      expect(target.received).toHaveLength(expected - 1);
      w.clock.advance(1);
      await w.dispatcher.step();
      expect(target.received).toHaveLength(expected);
    }
    w.clock.advance(24 * 3_600_000);
    await w.dispatcher.step();
    expect(target.received).toHaveLength(4);

    expect(new Set(target.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    const [delivery] = await deliveriesOf(w, hook.id);
    expect(delivery!.status).toBe("failed");
    expect(delivery!.attempts.map((a) => [a.attempt, a.responseStatus, a.errorClass, a.responseBody])).toEqual([
      [1, 500, "http", "boom"],
      [2, 500, "http", "boom"],
      [3, 500, "http", "boom"],
      [4, 500, "http", "boom"],
    ]);
    expect(delivery!.attempts.map((a) => a.nextAttemptAt && Date.parse(a.nextAttemptAt) - start)).toEqual([500, 1_500, 3_500, null]);
  });

  it("classes a receiver slower than timeoutMs as a timeout, and retries it", async () => {
    const target = await receiver(() => ({ status: 200, delayMs: 1_500 }));
    const hook = await w.kit.webhooks.create(w.admin, { name: "Slow", url: target.url(), events: ["case.created"], timeoutMs: 1_000, maxRetries: 1 });
    await w.kit.cases.create(w.admin, { title: "Slow receiver", severity: 2 });
    await w.dispatcher.step();
    const [delivery] = await deliveriesOf(w, hook.id);
    expect(delivery!.status).toBe("pending");
    expect(delivery!.attempts[0]).toMatchObject({ errorClass: "timeout", responseStatus: null });
    expect(delivery!.attempts[0]!.durationMs).toBeGreaterThanOrEqual(900);
  });

  it("honours Retry-After on 429 when it asks for longer than the backoff", async () => {
    const target = await receiver((_r, index) => (index === 0 ? { status: 429, headers: { "retry-after": "120" } } : { status: 204 }));
    const hook = await w.kit.webhooks.create(w.admin, { name: "Busy", url: target.url(), events: ["case.created"] });
    await w.kit.cases.create(w.admin, { title: "Busy receiver", severity: 2 });
    await w.dispatcher.step();
    w.clock.advance(119_999);
    await w.dispatcher.step();
    expect(target.received).toHaveLength(1);
    w.clock.advance(1);
    await w.dispatcher.step();
    expect(target.received).toHaveLength(2);
    const [delivery] = await deliveriesOf(w, hook.id);
    expect(delivery!.status).toBe("delivered");
    expect(delivery!.attempts.map((a) => a.responseStatus)).toEqual([429, 204]);
  });

  it("treats a redirect as a failure and never follows it", async () => {
    const elsewhere = await receiver();
    const target = await receiver(() => ({ status: 302, headers: { location: elsewhere.url("/stolen") } }));
    const hook = await w.kit.webhooks.create(w.admin, { name: "Moved", url: target.url(), events: ["case.created"], maxRetries: 0 });
    await w.kit.cases.create(w.admin, { title: "Redirected", severity: 2 });
    await w.dispatcher.step();
    const [delivery] = await deliveriesOf(w, hook.id);
    expect(delivery!.status).toBe("failed");
    expect(delivery!.attempts[0]).toMatchObject({ responseStatus: 302, errorClass: "http" });
    expect(elsewhere.connections()).toBe(0);
  });

  it("disables the subscription on 410 Gone: no retry, and no later event reaches it", async () => {
    const target = await receiver(() => ({ status: 410 }));
    const hook = await w.kit.webhooks.create(w.admin, { name: "Gone", url: target.url(), events: ["case.created"], maxRetries: 5 });
    await w.kit.cases.create(w.admin, { title: "First", severity: 2 });
    await w.dispatcher.step();
    w.clock.advance(3_600_000);
    await w.kit.cases.create(w.admin, { title: "Second", severity: 2 });
    await w.dispatcher.step();
    expect(target.received).toHaveLength(1);
    expect(await w.kit.webhooks.get(w.admin, hook.id)).toMatchObject({ status: "disabled", disabledReason: expect.stringContaining("410") });
    const deliveries = await deliveriesOf(w, hook.id);
    expect(deliveries.map((d) => d.status)).toEqual(["failed"]);
  });

  it("re-checks TLP at send time: an owner whose clearance fell below the record's gets no content", async () => {
    const target = await receiver();
    const owner = await addUser(w.kit, w.organizationId, { role: "admin", tlpClearance: 4 });
    const ownerPrincipal = await w.kit.principalFor({ organizationId: w.organizationId, userId: owner.id, scopes: ["webhooks:write", "webhooks:read"], tlpClearance: 4 });
    await w.kit.webhooks.create(ownerPrincipal, { name: "Owned", url: target.url(), events: ["case.created"] });
    await w.kit.cases.create(w.admin, { title: "Secret operation", severity: 4, tlp: 3 });
    await w.kit.storage.transaction(async (tx) => tx.users.update({ ...(await tx.users.findById(w.organizationId, owner.id))!, tlpClearance: 1 }));
    await w.dispatcher.step();
    const body = JSON.parse(target.received[0]!.body) as { data: Record<string, unknown> };
    expect(body.data).toEqual({ id: expect.stringMatching(/^case_/), resourceType: "case", tlp: 3, redacted: true });
    expect(target.received[0]!.body).not.toContain("Secret operation");
  });

  it("a bulk operation's one stored event reaches subscribers as one delivery per record, each TLP-checked at send time", async () => {
    const target = await receiver();
    const owner = await addUser(w.kit, w.organizationId, { role: "admin", tlpClearance: 4 });
    const ownerPrincipal = await w.kit.principalFor({ organizationId: w.organizationId, userId: owner.id, scopes: ["webhooks:write", "webhooks:read", "tasks:read"], tlpClearance: 4 });
    await w.kit.webhooks.create(ownerPrincipal, { name: "Tasks", url: target.url(), events: ["task.updated"] });
    const parent = await w.kit.cases.create(w.admin, { title: "parent", severity: 2, tlp: 1 });
    const made = [];
    for (const tlp of [1, 2, 3]) made.push(await w.kit.tasks.create(w.admin, parent.id, { title: `Secret task ${tlp}`, tlp }));
    const result = await w.kit.tasks.bulkUpdate(w.admin, { ids: made.map((t) => t.id), fields: { mandatory: true } });
    // The owner's clearance falls to AMBER after the bulk: the RED-ish task's delivery carries no content.
    await w.kit.storage.transaction(async (tx) => tx.users.update({ ...(await tx.users.findById(w.organizationId, owner.id))!, tlpClearance: 2 }));
    while ((await w.dispatcher.step()).attempts > 0);
    const bodies = target.received.map((r) => JSON.parse(r.body) as { type: string; eventId: string; bulkRequestId?: string; data: Record<string, unknown> });
    expect(bodies).toHaveLength(3);
    expect(new Set(bodies.map((b) => b.eventId)).size).toBe(3);
    expect(bodies.every((b) => b.type === "task.updated" && b.bulkRequestId === result.bulkRequestId)).toBe(true);
    const byId = new Map(bodies.map((b) => [b.data.id, b.data]));
    expect(byId.get(made[0]!.id)).toMatchObject({ id: made[0]!.id, title: "Secret task 1", mandatory: true });
    expect(byId.get(made[1]!.id)).toMatchObject({ id: made[1]!.id, title: "Secret task 2", mandatory: true });
    expect(byId.get(made[2]!.id)).toEqual({ id: made[2]!.id, resourceType: "task", tlp: 3, redacted: true });
    expect(target.received.map((r) => r.body).join("")).not.toContain("Secret task 3");
  });

  it("stops delivering for a subscription whose owner is no longer active", async () => {
    const target = await receiver();
    const owner = await addUser(w.kit, w.organizationId, { role: "admin" });
    const ownerPrincipal = await w.kit.principalFor({ organizationId: w.organizationId, userId: owner.id, scopes: ["webhooks:write", "webhooks:read"], tlpClearance: 4 });
    const hook = await w.kit.webhooks.create(ownerPrincipal, { name: "Owned", url: target.url(), events: ["case.created"] });
    await w.kit.cases.create(w.admin, { title: "After the owner left", severity: 2 });
    await w.kit.storage.transaction(async (tx) => tx.users.update({ ...(await tx.users.findById(w.organizationId, owner.id))!, status: "disabled" }));
    await w.dispatcher.step();
    expect(target.received).toHaveLength(0);
    expect((await deliveriesOf(w, hook.id)).map((d) => d.status)).toEqual(["failed"]);
  });

  it("survives the subscription being deleted while an attempt is in flight", async () => {
    const target = await receiver(() => ({ status: 200, delayMs: 300 }));
    const hook = await w.kit.webhooks.create(w.admin, { name: "Short-lived", url: target.url(), events: ["case.created"] });
    await w.kit.cases.create(w.admin, { title: "In flight", severity: 2 });
    const stepping = w.dispatcher.step();
    while (target.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await w.kit.webhooks.delete(w.admin, hook.id);
    await expect(stepping).resolves.toEqual({ events: 2, attempts: 1 });
    await expect(w.dispatcher.step()).resolves.toEqual({ events: 1, attempts: 0 }); // webhook.deleted, nobody subscribed
  });

  it("never connects to a loopback receiver the transport's allowlist does not name (blocked at send)", async () => {
    const target = await receiver();
    const strict = await makeWorld("");
    const hook = await strict.kit.webhooks.create(strict.admin, { name: "Was allowed", url: target.url(), events: ["case.created"], maxRetries: 0 });
    await strict.kit.cases.create(strict.admin, { title: "Blocked", severity: 2 });
    await strict.dispatcher.step();
    expect(target.connections()).toBe(0);
    const [delivery] = (await strict.kit.webhooks.listDeliveries(strict.admin, hook.id, {})).data;
    expect(delivery).toMatchObject({ status: "failed" });
    expect(delivery!.attempts[0]).toMatchObject({ errorClass: "blocked", responseStatus: null });
  });

  it("records an attempt through the host's retry (the core keeps no timers), and back to back without one", async () => {
    const target = await receiver();
    const hook = await w.kit.webhooks.create(w.admin, { name: "Recorded", url: target.url(), events: ["case.created"] });
    // A storage whose next reading of a delivery inside a unit (the record of an attempt) fails
    // once, as a passing database error would.
    let failures = 0;
    const storage = w.kit.deps.storage;
    const flaky: Storage = {
      ...storage,
      transaction: (work) =>
        storage.transaction((tx) =>
          work(
            unitWith(tx, {
              deliveries: { ...tx.deliveries, findById: (...args) => (failures > 0 ? (failures--, Promise.reject(new Error("database went away"))) : tx.deliveries.findById(...args)) },
            }),
          ),
        ),
    };
    const options = { transport: createNodeTransport({ allowlist: parseWebhookAllowlist("127.0.0.1") }), unseal: createSealer(keyHashSecret).unseal };
    let hostRetries = 0;
    const viaHost = createDispatcher({ ...w.kit.deps, storage: flaky }, { ...options, retryRecord: async (write) => (hostRetries++, write().catch(() => write())) });
    await w.kit.cases.create(w.admin, { title: "Recorded through the host", severity: 2 });
    failures = 1;
    await viaHost.step();
    expect(hostRetries).toBe(1);
    expect(failures).toBe(0);
    expect((await deliveriesOf(w, hook.id)).map((d) => d.status)).toEqual(["delivered"]);

    const backToBack = createDispatcher({ ...w.kit.deps, storage: flaky }, options);
    await w.kit.cases.create(w.admin, { title: "Recorded back to back", severity: 2 });
    failures = 2;
    await backToBack.step();
    expect(failures).toBe(0);
    expect((await deliveriesOf(w, hook.id)).map((d) => d.status)).toEqual(["delivered", "delivered"]);
    expect(target.received).toHaveLength(2);
  });

  it("sends the test event to that subscription only", async () => {
    const a = await receiver();
    const b = await receiver();
    const hookA = await w.kit.webhooks.create(w.admin, { name: "A", url: a.url(), events: ["*"] });
    await w.kit.webhooks.create(w.admin, { name: "B", url: b.url(), events: ["*"] });
    await w.dispatcher.step(); // webhook.created events
    const countB = b.received.length;
    const test = await w.kit.webhooks.test(w.admin, hookA.id);
    await w.dispatcher.step();
    expect(a.received.at(-1)!.headers["webhook-id"]).toBe(test.id);
    expect(JSON.parse(a.received.at(-1)!.body)).toMatchObject({ type: "webhook.test" });
    expect(b.received).toHaveLength(countB);
  });
});

describe("tenant isolation of deliveries (property)", () => {
  it("an event of one organization never reaches another organization's subscriptions", async () => {
    const w = await makeWorld();
    const other = await addOrganization(w.kit, "Globex");
    const third = await addOrganization(w.kit, "Initech");
    const tenants = [
      { organizationId: w.organizationId, admin: w.admin },
      { organizationId: other.organizationId, admin: other.admin },
      { organizationId: third.organizationId, admin: third.admin },
    ];
    const target = await receiver();
    const hooks = new Map<string, string>(); // webhook id → organization
    for (const [index, tenant] of tenants.entries()) {
      for (const events of [["*"], ["case.*"]]) {
        const hook = await w.kit.webhooks.create(tenant.admin, { name: `T${index} ${events[0]}`, url: target.url(`/t${index}`), events });
        hooks.set(hook.id, tenant.organizationId);
      }
    }
    await w.dispatcher.step();
    target.received.length = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ tenant: fc.integer({ min: 0, max: 2 }), severity: fc.integer({ min: 1, max: 4 }) }), { minLength: 1, maxLength: 8 }), async (actions) => {
        target.received.length = 0;
        const created = new Map<string, string>(); // case id → organization
        for (const action of actions) {
          const tenant = tenants[action.tenant]!;
          const record = await w.kit.cases.create(tenant.admin, { title: `Case of tenant ${action.tenant}`, severity: action.severity });
          created.set(record.id, tenant.organizationId);
        }
        while ((await w.dispatcher.step()).attempts > 0);
        // Every case reached exactly the two subscriptions of its own organization, and nothing else arrived.
        expect(target.received).toHaveLength(created.size * 2);
        for (const request of target.received) {
          const payload = JSON.parse(request.body) as { data: { id: string; organizationId: string } };
          const tenantIndex = Number(request.path.slice(2));
          expect(payload.data.organizationId).toBe(tenants[tenantIndex]!.organizationId);
          expect(created.get(payload.data.id)).toBe(tenants[tenantIndex]!.organizationId);
        }
      }),
      { numRuns: 15 },
    );
  });
});
