/**
 * How the dispatcher works through a claimed batch: what its attempts need is read once, the
 * attempts run bounded in all and per target, their records are written in a few units rather
 * than one per delivery, one record that cannot be written loses no other, and a context that
 * waited too long for a slot, or that a change affecting access has overtaken, is read again
 * before its attempt (grant and TLP as of send time).
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Principal, Storage } from "../../core/index.js";
import { createSealer } from "../../core/index.js";
import type { OutboundRequest, OutboundResponse, OutboundTransport } from "../../core/ports/outbound.js";
import type { DispatcherOptions } from "../../core/webhooks/dispatcher.js";
import { createDispatcher } from "../../core/webhooks/dispatcher.js";
import type { TestKit } from "../helpers/kit.js";
import { addKey, addUser, keyHashSecret, makeTestKit } from "../helpers/kit.js";
import { unitWith } from "../helpers/unit-with.js";

const unseal = createSealer(keyHashSecret).unseal;
const later = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The storage, counting the units of work and the read units started through it. */
function counted(storage: Storage) {
  const counts = { transactions: 0, reads: 0, slowUnit: 0 };
  const wrapped: Storage = {
    ...storage,
    transaction: (work) => {
      counts.transactions++;
      if (counts.transactions !== counts.slowUnit) return storage.transaction(work);
      return new Promise<void>((resolve) => setTimeout(resolve, 50)).then(() => storage.transaction(work));
    },
    read: (work) => (counts.reads++, storage.read(work)),
  };
  return { counts, storage: wrapped };
}

/** A receiver stand-in answering 200 a macrotask later, noting what is in flight per origin and in all. */
function trackingTransport(onSend: (request: OutboundRequest) => Promise<void> | void = () => undefined) {
  const sent: OutboundRequest[] = [];
  const inFlight = new Map<string, number>();
  const peaks = { overall: 0, byOrigin: new Map<string, number>() };
  let overall = 0;
  const transport: OutboundTransport = {
    async send(request): Promise<OutboundResponse> {
      const origin = new URL(request.url).origin;
      sent.push(request);
      overall += 1;
      inFlight.set(origin, (inFlight.get(origin) ?? 0) + 1);
      peaks.overall = Math.max(peaks.overall, overall);
      peaks.byOrigin.set(origin, Math.max(peaks.byOrigin.get(origin) ?? 0, inFlight.get(origin)!));
      await onSend(request);
      await later();
      overall -= 1;
      inFlight.set(origin, inFlight.get(origin)! - 1);
      return { status: 200, retryAfter: null, body: "ok", durationMs: 1 };
    },
  };
  return { transport, sent, peaks };
}

describe("the dispatcher's batches", () => {
  let t: TestKit;
  beforeEach(async () => {
    t = await makeTestKit();
  });

  async function subscribeAndCreate(urls: string[], cases: number): Promise<void> {
    for (const [index, url] of urls.entries()) await t.kit.webhooks.create(t.admin, { name: `Receiver ${index}`, url, events: ["case.created"] });
    for (let n = 0; n < cases; n++) await t.kit.cases.create(t.admin, { title: `Case ${n}`, severity: 2 });
  }

  function dispatcherWith(transport: OutboundTransport, options: Partial<DispatcherOptions> = {}, storage: Storage = t.kit.deps.storage) {
    return createDispatcher({ ...t.kit.deps, storage }, { transport, unseal, random: () => 0, ...options });
  }

  it("reads a batch's contexts in one read unit and records its attempts in a few units, not one per delivery", async () => {
    await subscribeAndCreate(["https://a.example.com/hook", "https://b.example.com/hook", "https://c.example.com/hook"], 20);
    const { counts, storage } = counted(t.kit.deps.storage);
    // Every receiver answers once all 60 attempts are in flight, so all results come at once.
    let release!: () => void;
    const allSent = new Promise<void>((resolve) => (release = resolve));
    const { transport, sent } = trackingTransport(() => (sent.length === 60 ? release() : allSent));
    const dispatcher = dispatcherWith(transport, { concurrencyPerTarget: 20 }, storage);
    while ((await dispatcher.fanOut()) > 0);
    counts.transactions = 0;
    counts.reads = 0;
    // A database that takes a while to write (the 2nd unit is the first record write): every other
    // result arrives while it runs, whatever the machine's load, so the batching is exact.
    counts.slowUnit = 2;

    expect(await dispatcher.deliverDue()).toBe(60);
    expect(sent).toHaveLength(60);
    expect(counts.reads).toBe(1);
    // The claim, then the records: the first result is written at once, the other 59 together after it.
    expect(counts.transactions).toBe(3);
    const [delivered, attempts] = await t.kit.storage.read(async (tx) => {
      const hooks = await tx.webhooks.list(t.organizationId, { limit: 10 });
      const deliveries = (await Promise.all(hooks.map((h) => tx.deliveries.list(t.organizationId, h.id, {}, { limit: 100 })))).flat();
      return [deliveries.filter((d) => d.status === "delivered" && d.attempts === 1 && d.leaseUntil === null).length, (await tx.deliveries.attemptsOf(t.organizationId, deliveries.map((d) => d.id))).length];
    });
    expect(delivered).toBe(60);
    expect(attempts).toBe(60);
  });

  it("keeps at most concurrency attempts in flight, and at most concurrencyPerTarget to one target", async () => {
    await subscribeAndCreate(["https://a.example.com/one", "https://a.example.com/two", "https://b.example.com/hook"], 10);
    const { transport, sent, peaks } = trackingTransport();
    const dispatcher = dispatcherWith(transport, { concurrency: 3, concurrencyPerTarget: 2 });
    while ((await dispatcher.step()).attempts > 0);
    expect(sent).toHaveLength(30);
    expect(peaks.byOrigin.get("https://a.example.com")).toBe(2);
    expect(peaks.byOrigin.get("https://b.example.com")).toBeLessThanOrEqual(2);
    expect(peaks.overall).toBe(3);
  });

  it("one attempt record that cannot be written loses no other; its delivery is sent again once its lease ends, under the same webhook-id", async () => {
    await subscribeAndCreate(["https://a.example.com/hook"], 5);
    const { transport, sent } = trackingTransport();
    let poisoned: string | null = null;
    const storage: Storage = {
      ...t.kit.deps.storage,
      transaction: (work) =>
        t.kit.deps.storage.transaction((tx) =>
          work(
            unitWith(tx, {
              deliveries: {
                ...tx.deliveries,
                insertAttempt: (attempt) => (attempt.deliveryId === poisoned ? Promise.reject(new Error("this row cannot be written")) : tx.deliveries.insertAttempt(attempt)),
              },
            }),
          ),
        ),
    };
    const dispatcher = dispatcherWith(transport, { leaseMs: 60_000 }, storage);
    while ((await dispatcher.fanOut()) > 0);

    // The third delivery sent is the one whose record fails.
    let sends = 0;
    const poisoning = dispatcherWith(
      {
        send: async (request) => {
          if (++sends === 3) poisoned = request.headers["webhook-id"]!;
          return transport.send(request);
        },
      },
      { leaseMs: 60_000, concurrency: 1 },
      storage,
    );
    await expect(poisoning.deliverDue()).rejects.toThrow("this row cannot be written");
    const hook = (await t.kit.webhooks.list(t.admin, {})).data[0]!;
    const after = (await t.kit.webhooks.listDeliveries(t.admin, hook.id, {})).data;
    expect(after.filter((d) => d.status === "delivered")).toHaveLength(4);
    expect(after.find((d) => d.id === poisoned)).toMatchObject({ status: "pending", attemptCount: 0 });

    // Still leased: nobody takes it; once the lease ends it is sent again, with the same id.
    poisoned = null;
    expect(await dispatcher.deliverDue()).toBe(0);
    t.clock.advance(60_000);
    expect(await dispatcher.deliverDue()).toBe(1);
    const ids = sent.map((r) => r.headers["webhook-id"]);
    expect(ids.filter((id) => id === ids[2])).toHaveLength(2);
    expect((await t.kit.webhooks.listDeliveries(t.admin, hook.id, {})).data.every((d) => d.status === "delivered")).toBe(true);
  });

  it("judges the grant's key expiry at each attempt's own time, even within one context read", async () => {
    const owner = await addUser(t.kit, t.organizationId, { role: "admin", tlpClearance: 4 });
    const expiresAt = new Date(t.clock.now().getTime() + 500).toISOString();
    const key = await addKey(t.kit, owner, { scopes: ["webhooks:write", "webhooks:read", "cases:read"], expiresAt });
    const hook = await t.kit.webhooks.create(await t.kit.authenticateKey(key.secret), { name: "Expiring", url: "https://a.example.com/hook", events: ["case.created"] });
    for (const title of ["Before expiry", "After expiry"]) await t.kit.cases.create(t.admin, { title, severity: 2 });
    // The first attempt takes 600 ms: the key expires during it, well within the context's second.
    let first = true;
    const { transport, sent } = trackingTransport(() => {
      if (first) t.clock.advance(600);
      first = false;
    });
    const dispatcher = dispatcherWith(transport, { concurrency: 1 });
    while ((await dispatcher.step()).attempts > 0);
    expect(sent.map((r) => JSON.parse(r.body).data.title)).toEqual(["Before expiry"]);
    expect(await t.kit.webhooks.get(t.admin, hook.id)).toMatchObject({ status: "disabled", disabledReason: expect.stringMatching(/expired/) });
  });

  describe("a context read long before its attempt", () => {
    async function ownerWorld() {
      const owner = await addUser(t.kit, t.organizationId, { role: "admin", tlpClearance: 4 });
      const principal: Principal = await t.kit.principalFor({ organizationId: t.organizationId, userId: owner.id, scopes: ["webhooks:write", "webhooks:read", "cases:read"], tlpClearance: 4 });
      await t.kit.webhooks.create(principal, { name: "Owned", url: "https://a.example.com/hook", events: ["case.created"] });
      for (const title of ["Amber one", "Amber two"]) await t.kit.cases.create(t.admin, { title, severity: 3, tlp: 3 });
      return owner;
    }

    /** Sends one at a time; during the first send the owner's clearance falls to 1 and `waitMs` pass. */
    async function deliverWhileClearanceFalls(waitMs: number): Promise<string[]> {
      const owner = await ownerWorld();
      let first = true;
      const { transport, sent } = trackingTransport(async () => {
        if (!first) return;
        first = false;
        await t.kit.storage.transaction(async (tx) => tx.users.update({ ...(await tx.users.findById(t.organizationId, owner.id))!, tlpClearance: 1 }));
        t.clock.advance(waitMs);
      });
      const dispatcher = dispatcherWith(transport, { concurrency: 1 });
      while ((await dispatcher.step()).attempts > 0);
      return sent.map((r) => r.body);
    }

    it("is read again when more than a second old: the grant and TLP are those at send time", async () => {
      const [firstBody, secondBody] = await deliverWhileClearanceFalls(1_001);
      expect(firstBody).toContain("Amber one");
      expect(JSON.parse(secondBody!).data).toEqual({ id: expect.stringMatching(/^case_/), resourceType: "case", tlp: 3, redacted: true });
    });

    it("is read again as soon as a change affecting access has committed, however recent the read", async () => {
      const [firstBody, secondBody] = await deliverWhileClearanceFalls(0);
      expect(firstBody).toContain("Amber one");
      expect(JSON.parse(secondBody!).data).toEqual({ id: expect.stringMatching(/^case_/), resourceType: "case", tlp: 3, redacted: true });
    });

    it("is used as read within a second when nothing affecting access changed (no second read unit)", async () => {
      await ownerWorld();
      const { counts, storage } = counted(t.kit.deps.storage);
      let first = true;
      const { transport, sent } = trackingTransport(() => {
        if (first) t.clock.advance(1_000);
        first = false;
      });
      const dispatcher = dispatcherWith(transport, { concurrency: 1 }, storage);
      while ((await dispatcher.fanOut()) > 0);
      counts.reads = 0;
      while ((await dispatcher.step()).attempts > 0);
      expect(sent.map((r) => JSON.parse(r.body).data.title)).toEqual(["Amber one", "Amber two"]);
      expect(counts.reads).toBe(1);
    });
  });
});
