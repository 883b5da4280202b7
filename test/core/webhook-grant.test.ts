/**
 * Issue 12, item 3: a subscription delivers with what its creator held, never more. It records
 * the creating key (or none), that principal's clearance and scopes; every delivery is made as the
 * grant resolves at send time (the key's and the owner's current rights cap it; a revoked key
 * stops it for good); and only someone holding at least the grant may change it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { CaseKit, ErrorCode, Principal, Scope, StoredApiKey, User } from "../../core/index.js";
import type { OutboundRequest, OutboundResponse, OutboundTransport } from "../../core/ports/outbound.js";
import { createSealer } from "../../core/index.js";
import type { Dispatcher } from "../../core/webhooks/dispatcher.js";
import { createDispatcher } from "../../core/webhooks/dispatcher.js";
import { addKey, addUser, keyHashSecret, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

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

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { code: (error as { code: ErrorCode }).code, message: (error as Error).message };
  }
  throw new Error("expected a failure");
}

const allRecords: Scope[] = ["cases:read", "cases:write", "tasks:read", "observables:read", "alerts:read"];
const hook = { name: "SIEM", url: "https://hooks.example.com/casekit", events: ["case.*", "task.*", "observable.*"] };

interface World extends TestKit {
  dispatcher: Dispatcher;
  transport: ReturnType<typeof recordingTransport>;
  /** An admin user (clearance 4) and a key of theirs with clearance 1. */
  owner: User;
  lowKey: StoredApiKey;
  low: Principal;
  /** The same owner's key with clearance 4. */
  high: Principal;
}

async function makeWorld(): Promise<World> {
  const t = await makeTestKit();
  const transport = recordingTransport();
  const dispatcher = createDispatcher(t.kit.deps, { transport, unseal: createSealer(keyHashSecret).unseal, random: () => 0 });
  const owner = await addUser(t.kit, t.organizationId, { role: "admin", tlpClearance: 4 });
  const low = await addKey(t.kit, owner, { scopes: ["webhooks:read", "webhooks:write", ...allRecords], tlpClearance: 1 });
  const high = await addKey(t.kit, owner, { scopes: ["webhooks:read", "webhooks:write", ...allRecords], tlpClearance: 4 });
  return {
    ...t,
    dispatcher,
    transport,
    owner,
    lowKey: low.key,
    low: await t.kit.authenticateKey(low.secret),
    high: await t.kit.authenticateKey(high.secret),
  };
}

/** Fans out and delivers everything due; the bodies sent, by record id. */
async function deliver(w: World): Promise<Map<string, { type: string; data: Record<string, unknown> }>> {
  const from = w.transport.sent.length;
  while ((await w.dispatcher.step()).events > 0);
  const bodies = w.transport.sent.slice(from).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
  return new Map(bodies.map((b) => [String(b.data.id), b]));
}

async function setKey(kit: CaseKit, key: StoredApiKey, change: Partial<StoredApiKey>): Promise<void> {
  await kit.storage.transaction((tx) => tx.apiKeys.update({ ...key, ...change }));
}

describe("a subscription delivers with its creator's grant", () => {
  let w: World;
  beforeEach(async () => {
    w = await makeWorld();
  });

  it("created by a clearance-1 key of a RED-cleared owner: RED and AMBER records go out redacted, GREEN in full", async () => {
    await w.kit.webhooks.create(w.low, hook);
    const green = await w.kit.cases.create(w.admin, { title: "GREEN", severity: 1, tlp: 1 });
    const amber = await w.kit.cases.create(w.admin, { title: "AMBER", severity: 1, tlp: 2 });
    const red = await w.kit.cases.create(w.admin, { title: "RED secret", severity: 1, tlp: 4 });
    const sent = await deliver(w);
    expect(sent.get(green.id)!.data).toMatchObject({ title: "GREEN" });
    expect(sent.get(amber.id)!.data).toEqual({ id: amber.id, resourceType: "case", tlp: 2, redacted: true });
    expect(sent.get(red.id)!.data).toEqual({ id: red.id, resourceType: "case", tlp: 4, redacted: true });
    expect(w.transport.sent.map((r) => r.body).join("")).not.toContain("RED secret");
  });

  it("the same subscription created by the owner's clearance-4 key delivers RED in full", async () => {
    await w.kit.webhooks.create(w.high, hook);
    const red = await w.kit.cases.create(w.admin, { title: "RED", severity: 1, tlp: 4 });
    expect((await deliver(w)).get(red.id)!.data).toMatchObject({ title: "RED" });
  });

  it("children inherit their case's marking: a TLP:CLEAR task and observable of a RED case go out redacted", async () => {
    await w.kit.webhooks.create(w.low, hook);
    const red = await w.kit.cases.create(w.admin, { title: "RED", severity: 1, tlp: 4 });
    const task = await w.kit.tasks.create(w.admin, red.id, { title: "CLEAR task", tlp: 0 });
    const observable = await w.kit.observables.create(w.admin, { kind: "case", id: red.id }, { dataType: "domain", data: "clear.example", tlp: 0 });
    const sent = await deliver(w);
    expect(sent.get(task.id)!.data).toEqual({ id: task.id, resourceType: "task", tlp: 4, redacted: true });
    expect(sent.get(observable.id)!.data).toEqual({ id: observable.id, resourceType: "observable", tlp: 4, redacted: true });
  });

  it("a parent raised after the event raises the delivery too: a task of a case made RED meanwhile goes out redacted", async () => {
    await w.kit.webhooks.create(w.low, hook);
    const green = await w.kit.cases.create(w.admin, { title: "GREEN for now", severity: 1, tlp: 1 });
    const task = await w.kit.tasks.create(w.admin, green.id, { title: "CLEAR task", tlp: 0 });
    await w.dispatcher.fanOut();
    await w.kit.cases.update(w.admin, green.id, { tlp: 4 });
    expect((await deliver(w)).get(task.id)!.data).toEqual({ id: task.id, resourceType: "task", tlp: 4, redacted: true });
  });

  it("scopes too: a record kind the creator could not read goes out redacted", async () => {
    const { secret } = await addKey(w.kit, w.owner, { scopes: ["webhooks:write", "tasks:read"], tlpClearance: 4 });
    await w.kit.webhooks.create(await w.kit.authenticateKey(secret), hook);
    const created = await w.kit.cases.create(w.admin, { title: "Needs cases:read", severity: 1, tlp: 0 });
    const task = await w.kit.tasks.create(w.admin, created.id, { title: "Readable", tlp: 0 });
    const sent = await deliver(w);
    expect(sent.get(created.id)!.data).toEqual({ id: created.id, resourceType: "case", tlp: 0, redacted: true });
    expect(sent.get(task.id)!.data).toMatchObject({ title: "Readable" });
  });

  it("filters see only what the subscription may read: a filter on a RED record's title never matches", async () => {
    await w.kit.webhooks.create(w.low, { ...hook, filters: { title: "RED secret" } });
    await w.kit.cases.create(w.admin, { title: "RED secret", severity: 1, tlp: 4 });
    expect((await deliver(w)).size).toBe(0);
  });

  it("a key reduced later caps what its subscriptions deliver, at send time", async () => {
    const { key, secret } = await addKey(w.kit, w.owner, { scopes: ["webhooks:write", ...allRecords], tlpClearance: 4 });
    await w.kit.webhooks.create(await w.kit.authenticateKey(secret), hook);
    const amber = await w.kit.cases.create(w.admin, { title: "AMBER", severity: 1, tlp: 2 });
    await w.dispatcher.fanOut();
    await setKey(w.kit, key, { tlpClearance: 1 });
    expect((await deliver(w)).get(amber.id)!.data).toMatchObject({ redacted: true });
  });

  it("an owner reduced later caps them too", async () => {
    await w.kit.webhooks.create(w.high, hook);
    await w.kit.storage.transaction(async (tx) => tx.users.update({ ...(await tx.users.findById(w.organizationId, w.owner.id))!, tlpClearance: 1 }));
    const amber = await w.kit.cases.create(w.admin, { title: "AMBER", severity: 1, tlp: 2 });
    expect((await deliver(w)).get(amber.id)!.data).toMatchObject({ redacted: true });
  });

  it("a revoked (or deleted, or expired) key stops its subscriptions for good: nothing is sent, the subscription is disabled saying why, and cannot be turned back on", async () => {
    for (const [end, reason] of [
      [(key: StoredApiKey) => setKey(w.kit, key, { status: "revoked" }), /revoked/],
      [(key: StoredApiKey) => w.kit.storage.transaction((tx) => tx.apiKeys.delete(w.organizationId, key.id)), /deleted/],
      [(key: StoredApiKey) => setKey(w.kit, key, { expiresAt: w.clock.now().toISOString() }), /expired/],
    ] as const) {
      const { key, secret } = await addKey(w.kit, w.owner, { scopes: ["webhooks:write", ...allRecords], tlpClearance: 4 });
      const created = await w.kit.webhooks.create(await w.kit.authenticateKey(secret), hook);
      await end(key);
      const from = w.transport.sent.length;
      await w.kit.cases.create(w.admin, { title: "After the end", severity: 1, tlp: 0 });
      await deliver(w);
      expect(w.transport.sent.slice(from).filter((r) => r.url === hook.url)).toHaveLength(0);
      const after = await w.kit.webhooks.get(w.admin, created.id);
      expect(after).toMatchObject({ status: "disabled", disabledReason: expect.stringMatching(reason) });
      expect((await w.kit.webhooks.listDeliveries(w.admin, created.id, {})).data.every((d) => d.status === "failed" && d.attemptCount === 0)).toBe(true);
      expect(await failure(w.kit.webhooks.update(w.admin, created.id, { status: "active" }))).toMatchObject({ code: "conflict", message: expect.stringMatching(reason) });
      await w.kit.webhooks.delete(w.admin, created.id);
    }
  });

  it("a suspended key holds deliveries back without disabling; once resumed, new events flow again", async () => {
    const { key, secret } = await addKey(w.kit, w.owner, { scopes: ["webhooks:write", ...allRecords], tlpClearance: 4 });
    const created = await w.kit.webhooks.create(await w.kit.authenticateKey(secret), hook);
    await setKey(w.kit, key, { status: "suspended" });
    const held = await w.kit.cases.create(w.admin, { title: "Held", severity: 1, tlp: 0 });
    expect((await deliver(w)).has(held.id)).toBe(false);
    expect((await w.kit.webhooks.get(w.admin, created.id)).status).toBe("active");
    await setKey(w.kit, key, { status: "active" });
    const flowing = await w.kit.cases.create(w.admin, { title: "Flowing", severity: 1, tlp: 0 });
    expect((await deliver(w)).get(flowing.id)!.data).toMatchObject({ title: "Flowing" });
  });
});

describe("nobody changes a subscription that holds more than they do", () => {
  let w: World;
  let adminHook: { id: string };
  beforeEach(async () => {
    w = await makeWorld();
    adminHook = await w.kit.webhooks.create(w.high, hook);
  });

  it("a clearance-1 key cannot re-point, re-select, re-filter, re-enable or take the secret of a clearance-4 subscription", async () => {
    for (const patch of [
      { url: "https://attacker.example.com/steal" },
      { events: ["*"] },
      { filters: {} },
      { headers: { "x-extra": "1" } },
      { name: "renamed" },
      { status: "active" as const },
    ]) {
      expect((await failure(w.kit.webhooks.update(w.low, adminHook.id, patch))).code).toBe("tlp_restricted");
    }
    expect((await failure(w.kit.webhooks.rotateSecret(w.low, adminHook.id))).code).toBe("tlp_restricted");
    expect(await w.kit.webhooks.get(w.admin, adminHook.id)).toMatchObject({ url: hook.url, events: hook.events, name: hook.name });
  });

  it("a key without one of the subscription's scopes cannot change it either (missing_scope)", async () => {
    const { secret } = await addKey(w.kit, w.owner, { scopes: ["webhooks:read", "webhooks:write"], tlpClearance: 4 });
    const narrow = await w.kit.authenticateKey(secret);
    expect((await failure(w.kit.webhooks.update(narrow, adminHook.id, { url: "https://attacker.example.com/steal" }))).code).toBe("missing_scope");
  });

  it("turning it off and deleting it only stop data: anyone with webhooks:write may", async () => {
    expect((await w.kit.webhooks.update(w.low, adminHook.id, { status: "disabled" })).status).toBe("disabled");
    expect((await failure(w.kit.webhooks.update(w.low, adminHook.id, { status: "active" }))).code).toBe("tlp_restricted");
    await w.kit.webhooks.delete(w.low, adminHook.id);
    expect((await failure(w.kit.webhooks.get(w.admin, adminHook.id))).code).toBe("not_found");
  });

  it("someone who holds more may change a lower subscription, which keeps its own grant", async () => {
    const lowHook = await w.kit.webhooks.create(w.low, hook);
    await w.kit.webhooks.update(w.high, lowHook.id, { url: "https://other.example.com/hook" });
    await w.kit.webhooks.delete(w.admin, adminHook.id);
    const red = await w.kit.cases.create(w.admin, { title: "RED", severity: 1, tlp: 4 });
    const sent = await deliver(w);
    expect(w.transport.sent.at(-1)!.url).toBe("https://other.example.com/hook");
    expect(sent.get(red.id)!.data).toMatchObject({ redacted: true });
  });
});
