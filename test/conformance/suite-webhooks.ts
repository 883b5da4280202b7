import { beforeEach, describe, expect, it } from "vitest";
import type { Delivery, DeliveryAttempt, DeliveryFilter, DomainEvent, Organization, StoredUser, StoredWebhook, UnitOfWork } from "../../core/index.js";
import { auditOutboxCursorId } from "../../core/webhooks/audit-outbox.js";
import type { Fixtures } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined, idsOf, newestFirst, walkPages } from "./suite-context.js";

/** Record factories for this section (complete records: optional values null, never undefined). */
const webhookOf = (f: Fixtures, organizationId: string, overrides: Partial<StoredWebhook> = {}): StoredWebhook => f.webhook(organizationId, overrides);

function deliveryOf(f: Fixtures, webhook: StoredWebhook, event: DomainEvent, overrides: Partial<Delivery> = {}): Delivery {
  return {
    id: f.ids.next("dlv"),
    organizationId: webhook.organizationId,
    webhookId: webhook.id,
    eventId: event.id,
    eventName: event.name,
    status: "pending",
    attempts: 0,
    nextAttemptAt: f.at(),
    leaseUntil: null,
    lastResponseStatus: null,
    lastErrorClass: null,
    createdAt: f.at(),
    updatedAt: f.at(),
    completedAt: null,
    ...overrides,
  };
}

function attemptOf(f: Fixtures, delivery: Delivery, attempt: number, overrides: Partial<DeliveryAttempt> = {}): DeliveryAttempt {
  return {
    id: f.ids.next("att"),
    organizationId: delivery.organizationId,
    deliveryId: delivery.id,
    webhookId: delivery.webhookId,
    attempt,
    requestedAt: f.at(),
    durationMs: 12.34,
    responseStatus: 500,
    responseBody: "upstream down",
    errorClass: "http",
    nextAttemptAt: null,
    ...overrides,
  };
}

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** Webhook subscriptions, deliveries and attempts: the port's WebhookRepository and DeliveryRepository. */
export function describeWebhooks(ctx: SuiteContext): void {
  describe("webhooks", () => {
    let org: Organization;
    let user: StoredUser;
    beforeEach(async () => {
      ({ org, user } = await ctx.seedOrganization());
    });

    const insertEvents = async (organizationId: string, count: number, overrides: Partial<DomainEvent> = {}): Promise<DomainEvent[]> => {
      const events = Array.from({ length: count }, () => ctx.fixtures().event(organizationId, overrides));
      await ctx.storage().transaction(async (tx) => {
        for (const event of events) await tx.events.append(event);
      });
      return events;
    };
    const insertWebhook = async (overrides: Partial<StoredWebhook> = {}, organizationId = org.id): Promise<StoredWebhook> => {
      const webhook = webhookOf(ctx.fixtures(), organizationId, overrides);
      await ctx.storage().transaction((tx) => tx.webhooks.insert(webhook));
      return webhook;
    };
    /** A subscription with one delivery per new event. */
    const withDeliveries = async (count: number, overrides: (i: number) => Partial<Delivery> = () => ({})) => {
      const webhook = await insertWebhook();
      const events = await insertEvents(org.id, count);
      const deliveries = events.map((event, i) => deliveryOf(ctx.fixtures(), webhook, event, overrides(i)));
      await ctx.storage().transaction((tx) => tx.deliveries.insertMany(deliveries));
      return { webhook, events, deliveries };
    };

    describe("subscriptions", () => {
      it("insert then findById returns the same record, every field intact", async () => {
        const full = webhookOf(ctx.fixtures(), org.id, {
          name: "Zürich SOC ☕ \"prod\"",
          description: "Forwards\nevery case",
          method: "PATCH",
          authType: "basic",
          authConfig: { username: "v1.sealed-user", password: "v1.sealed-password" },
          headers: { "X-Team": "soc", "X-Env": "prod" },
          filters: { severity: { gte: 3 }, source: ["siem", "edr"], "customFields.region": "eu" },
          events: ["case.created", "alert.*"],
          retryDelayMs: 250,
          timeoutMs: 5000,
          maxRetries: 10,
          tags: ["siem", "eu"],
          environment: "staging",
          status: "disabled",
          disabledReason: "The receiver answered 410 Gone",
          previousSecret: "v1.sealed-previous",
          previousSecretExpiresAt: "2026-02-02T09:30:00.000Z",
          createdBy: user.id,
          grant: { keyId: ctx.fixtures().ids.next("key"), tlpClearance: 1, scopes: ["alerts:read", "tasks:read"] },
        });
        const bare = webhookOf(ctx.fixtures(), org.id);
        await ctx.storage().transaction(async (tx) => {
          await tx.webhooks.insert(full);
          await tx.webhooks.insert(bare);
        });
        for (const webhook of [full, bare]) {
          const found = await ctx.storage().read((tx) => tx.webhooks.findById(org.id, webhook.id));
          expect(found).toStrictEqual(webhook);
          expectNoUndefined(found);
        }
      });

      it("another organization's id, or an unknown id, is null; a taken id is a conflict", async () => {
        const webhook = await insertWebhook();
        const { org: other } = await ctx.seedOrganization();
        expect(await ctx.storage().read((tx) => tx.webhooks.findById(other.id, webhook.id))).toBeNull();
        expect(await ctx.storage().read((tx) => tx.webhooks.findById(org.id, ctx.fixtures().ids.next("whk")))).toBeNull();
        await expectConflict(ctx.storage().transaction((tx) => tx.webhooks.insert({ ...webhook, name: "again" })));
      });

      it("update replaces the stored subscription; false for an unknown id or another organization's", async () => {
        const webhook = await insertWebhook();
        const changed: StoredWebhook = {
          ...webhook,
          url: "https://other.example.com/hook",
          authType: "bearer",
          authConfig: { token: "v1.sealed-token" },
          status: "disabled",
          disabledReason: "Disabled on request",
          secret: "v1.new",
          secretStart: "whsec_wxyz",
          previousSecret: webhook.secret,
          previousSecretExpiresAt: plus(webhook.createdAt, 86_400_000),
          updatedAt: plus(webhook.updatedAt, 1000),
        };
        expect(await ctx.storage().transaction((tx) => tx.webhooks.update(changed))).toBe(true);
        expect(await ctx.storage().read((tx) => tx.webhooks.findById(org.id, webhook.id))).toStrictEqual(changed);
        const { org: other } = await ctx.seedOrganization();
        expect(await ctx.storage().transaction((tx) => tx.webhooks.update({ ...changed, organizationId: other.id, name: "stolen" }))).toBe(false);
        expect(await ctx.storage().transaction((tx) => tx.webhooks.update({ ...changed, id: ctx.fixtures().ids.next("whk") }))).toBe(false);
        expect((await ctx.storage().read((tx) => tx.webhooks.findById(org.id, webhook.id)))?.name).toBe(webhook.name);
      });

      it("list pages newest first within the organization; active lists only active ones, oldest first", async () => {
        const mine: StoredWebhook[] = [];
        for (let i = 0; i < 7; i++) mine.push(await insertWebhook({ status: i % 3 === 0 ? "disabled" : "active" }));
        const { org: other } = await ctx.seedOrganization();
        const theirs = await insertWebhook({}, other.id);
        const seen = await walkPages((page) => ctx.storage().read((tx) => tx.webhooks.list(org.id, page)), 3);
        expect(seen).toEqual(idsOf(newestFirst(mine)));
        const active = await ctx.storage().read((tx) => tx.webhooks.active(org.id));
        expect(idsOf(active)).toEqual(idsOf(mine.filter((w) => w.status === "active")));
        expect(idsOf(await ctx.storage().read((tx) => tx.webhooks.active(other.id)))).toEqual([theirs.id]);
      });

      it("activeOrganizations names each organization with an active subscription once, ascending, and none with only disabled ones", async () => {
        await insertWebhook({ status: "active" });
        await insertWebhook({ status: "active" });
        const { org: other } = await ctx.seedOrganization();
        await insertWebhook({}, other.id);
        const { org: quiet } = await ctx.seedOrganization();
        await insertWebhook({ status: "disabled" }, quiet.id);
        const found = await ctx.storage().read((tx) => tx.webhooks.activeOrganizations());
        expect(found.filter((id) => id === org.id)).toEqual([org.id]);
        expect(found).toContain(other.id);
        expect(found).not.toContain(quiet.id);
        expect(found).toEqual([...found].sort());
        // Fan-out keeps how far it moved an organization's audit events in the audit sinks' cursors.
        const cursorId = auditOutboxCursorId(org.id);
        await ctx.storage().transaction((tx) => tx.auditSinks.setCursor(org.id, cursorId, 5, "2026-03-01T12:00:00.000Z"));
        expect(await ctx.storage().read((tx) => tx.auditSinks.cursor(org.id, cursorId))).toBe(5);
        expect(await ctx.storage().read((tx) => tx.auditSinks.cursor(other.id, cursorId))).toBe(0);

        // heldCursor holds the row: a second unit reading it waits for the first to move it and commit.
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let held!: () => void;
        const holding = new Promise<void>((resolve) => (held = resolve));
        const first = ctx.storage().transaction(async (tx) => {
          expect(await tx.auditSinks.heldCursor(org.id, cursorId)).toBe(5);
          held();
          await released;
          await tx.auditSinks.setCursor(org.id, cursorId, 7, "2026-03-01T12:00:01.000Z");
        });
        await holding;
        const second = ctx.storage().transaction((tx) => tx.auditSinks.heldCursor(org.id, cursorId));
        await new Promise((resolve) => setTimeout(resolve, 50));
        release();
        await first;
        expect(await second).toBe(7);
      });

      it("delete removes the subscription with its deliveries and attempts, and nothing of another organization", async () => {
        const { webhook, deliveries } = await withDeliveries(2);
        await ctx.storage().transaction((tx) => tx.deliveries.insertAttempt(attemptOf(ctx.fixtures(), deliveries[0]!, 1)));
        const { org: other } = await ctx.seedOrganization();
        expect(await ctx.storage().transaction((tx) => tx.webhooks.delete(other.id, webhook.id))).toBe(false);
        expect(await ctx.storage().read((tx) => tx.webhooks.findById(org.id, webhook.id))).not.toBeNull();
        expect(await ctx.storage().transaction((tx) => tx.webhooks.delete(org.id, webhook.id))).toBe(true);
        expect(await ctx.storage().read((tx) => tx.webhooks.findById(org.id, webhook.id))).toBeNull();
        expect(await ctx.storage().read((tx) => tx.deliveries.findById(org.id, deliveries[0]!.id))).toBeNull();
        expect(await ctx.storage().read((tx) => tx.deliveries.attemptsOf(org.id, idsOf(deliveries)))).toEqual([]);
        expect(await ctx.storage().transaction((tx) => tx.webhooks.delete(org.id, webhook.id))).toBe(false);
      });
    });

    describe("events with no subscription to reach (organizations.active_webhooks)", () => {
      /** Events written as the core writes them: after an audit entry, which holds the organization's row. */
      const recordEvents = async (organizationId: string, count: number, before?: (tx: UnitOfWork) => Promise<void>): Promise<DomainEvent[]> => {
        const f = ctx.fixtures();
        const events = Array.from({ length: count }, () => f.event(organizationId));
        await ctx.storage().transaction(async (tx) => {
          await tx.audit.append(f.auditEntry(organizationId));
          await before?.(tx);
          for (const event of events) await tx.events.append(event);
        });
        return events;
      };
      const claim = () => ctx.storage().transaction((tx) => tx.deliveries.claimEvents(100, ctx.fixtures().at()));

      it("are written dispatched where no webhook of the organization is active: no claim returns them, every read returns them as before", async () => {
        const [event] = await recordEvents(org.id, 1);
        expect(await claim()).toEqual([]);
        const found = await ctx.storage().read((tx) => tx.events.findById(org.id, event!.id));
        expect(found).toStrictEqual(event);
        expect(await ctx.storage().read((tx) => tx.events.findRow(org.id, event!.id))).toStrictEqual([event]);
        expect((await ctx.storage().read((tx) => tx.events.list(org.id, { limit: 10 }))).find((e) => e.id === event!.id)).toStrictEqual(event);
      });

      it("wait for the claim exactly while one is active: the count follows insert, disable, enable, delete, in that organization only", async () => {
        const { org: other } = await ctx.seedOrganization();
        const waits = async (organizationId: string, expected: boolean) => {
          const events = await recordEvents(organizationId, 2);
          expect(idsOf(await claim())).toEqual(expected ? idsOf(events) : []);
        };
        await waits(org.id, false);
        const first = await insertWebhook();
        await waits(org.id, true);
        await waits(other.id, false);
        await ctx.storage().transaction((tx) => tx.webhooks.update({ ...first, status: "disabled", disabledReason: "paused" }));
        await waits(org.id, false);
        await ctx.storage().transaction((tx) => tx.webhooks.update({ ...first, status: "active", disabledReason: null }));
        await waits(org.id, true);
        // Written again unchanged: still one.
        await ctx.storage().transaction((tx) => tx.webhooks.update({ ...first, name: "renamed" }));
        await waits(org.id, true);
        const second = await insertWebhook({ status: "disabled", disabledReason: "paused" });
        await ctx.storage().transaction((tx) => tx.webhooks.update({ ...second, status: "active", disabledReason: null }));
        await ctx.storage().transaction((tx) => tx.webhooks.update({ ...first, status: "disabled", disabledReason: "gone" }));
        await waits(org.id, true);
        await ctx.storage().transaction((tx) => tx.webhooks.delete(org.id, second.id));
        await waits(org.id, false);
        await ctx.storage().transaction((tx) => tx.webhooks.delete(org.id, first.id));
        await waits(org.id, false);
        await insertWebhook({}, other.id);
        await waits(other.id, true);
        await waits(org.id, false);
      });

      it("wait for the claim when the unit wrote a webhook of the organization before them, or does not hold its row", async () => {
        const afterWebhook = await recordEvents(org.id, 1, (tx) => tx.webhooks.insert(webhookOf(ctx.fixtures(), org.id)));
        expect(idsOf(await claim())).toEqual(idsOf(afterWebhook));
        const { org: other } = await ctx.seedOrganization();
        const unheld = await insertEvents(other.id, 1);
        expect(idsOf(await claim())).toEqual(idsOf(unheld));
      });
    });

    describe("fan-out claims (claimEvents)", () => {
      it("takes each event once, oldest first, across organizations, at most `limit` at a time", async () => {
        const { org: other } = await ctx.seedOrganization();
        const events = [...(await insertEvents(org.id, 3)), ...(await insertEvents(other.id, 2)), ...(await insertEvents(org.id, 2))];
        const now = ctx.fixtures().at();
        const first = await ctx.storage().transaction((tx) => tx.deliveries.claimEvents(4, now));
        const second = await ctx.storage().transaction((tx) => tx.deliveries.claimEvents(4, now));
        const third = await ctx.storage().transaction((tx) => tx.deliveries.claimEvents(4, now));
        expect(first).toStrictEqual(events.slice(0, 4));
        expect(second).toStrictEqual(events.slice(4));
        expect(third).toEqual([]);
        // Claimed events stay readable as they were.
        expect(await ctx.storage().read((tx) => tx.events.findById(org.id, events[0]!.id))).toStrictEqual(events[0]);
      });

      it("a group event is expanded only where expandGroup says someone subscribes; either way it is claimed once", async () => {
        const { org: other } = await ctx.seedOrganization();
        const f = ctx.fixtures();
        const items = [0, 1].map((i) => ({ resourceId: `task_${i}`, tlp: 1, payload: { id: `task_${i}` } }));
        const groups = [org.id, other.id].map((organizationId, i) =>
          f.event(organizationId, { name: "task.updated", resourceId: `bulk_000${i}`, payload: {}, tlp: null, bulkRequestId: `bulk_000${i}` }),
        );
        const [single] = await insertEvents(other.id, 1);
        await ctx.storage().transaction(async (tx) => {
          for (const group of groups) await tx.events.append({ ...group, items });
        });
        const asked: string[] = [];
        const claimed = await ctx.storage().transaction((tx) =>
          tx.deliveries.claimEvents(10, f.at(), async (organizationId, name) => {
            asked.push(`${organizationId === org.id ? "org" : "other"} ${name}`);
            return organizationId === org.id;
          }),
        );
        // The subscribed organization's group comes back per record, the other's not at all; a single event is never asked about.
        expect(claimed.map((e) => e.id).sort()).toEqual([`${groups[0]!.id}.0`, `${groups[0]!.id}.1`, single!.id].sort());
        expect(asked.sort()).toEqual(["org task.updated", "other task.updated"]);
        expect(await ctx.storage().transaction((tx) => tx.deliveries.claimEvents(10, f.at()))).toEqual([]);
      });

      it("a claim rolled back with its unit of work leaves the events to the next claim", async () => {
        const events = await insertEvents(org.id, 2);
        const failed = ctx.storage().transaction(async (tx) => {
          expect(await tx.deliveries.claimEvents(10, ctx.fixtures().at())).toHaveLength(2);
          throw new Error("crash before commit");
        });
        await expect(failed).rejects.toThrow("crash before commit");
        expect(idsOf(await ctx.storage().transaction((tx) => tx.deliveries.claimEvents(10, ctx.fixtures().at())))).toEqual(idsOf(events));
      });

      it("concurrent claims never hand out the same event twice", async () => {
        const events = await insertEvents(org.id, 30);
        const claims = await Promise.all(Array.from({ length: 8 }, () => ctx.storage().transaction((tx) => tx.deliveries.claimEvents(5, ctx.fixtures().at()))));
        const claimed = claims.flat().map((e) => e.id);
        expect(new Set(claimed).size).toBe(claimed.length);
        expect([...claimed].sort()).toEqual(idsOf(events).sort());
      });
    });

    describe("deliveries", () => {
      it("insertMany then findById round-trips; a second delivery of the same event to the same subscription is ignored", async () => {
        const { webhook, events, deliveries } = await withDeliveries(2);
        const found = await ctx.storage().read((tx) => tx.deliveries.findById(org.id, deliveries[0]!.id));
        expect(found).toStrictEqual(deliveries[0]);
        expectNoUndefined(found);
        const duplicate = deliveryOf(ctx.fixtures(), webhook, events[0]!);
        await ctx.storage().transaction((tx) => tx.deliveries.insertMany([duplicate]));
        expect(await ctx.storage().read((tx) => tx.deliveries.findById(org.id, duplicate.id))).toBeNull();
        const { org: other } = await ctx.seedOrganization();
        expect(await ctx.storage().read((tx) => tx.deliveries.findById(other.id, deliveries[0]!.id))).toBeNull();
      });

      it("update writes the delivery's progress; false for another organization's", async () => {
        const { deliveries } = await withDeliveries(1);
        const done: Delivery = {
          ...deliveries[0]!,
          status: "failed",
          attempts: 4,
          nextAttemptAt: null,
          leaseUntil: null,
          lastResponseStatus: 503,
          lastErrorClass: "http",
          updatedAt: plus(deliveries[0]!.updatedAt, 5000),
          completedAt: plus(deliveries[0]!.updatedAt, 5000),
        };
        expect(await ctx.storage().transaction((tx) => tx.deliveries.update(done))).toBe(true);
        expect(await ctx.storage().read((tx) => tx.deliveries.findById(org.id, done.id))).toStrictEqual(done);
        const { org: other } = await ctx.seedOrganization();
        expect(await ctx.storage().transaction((tx) => tx.deliveries.update({ ...done, organizationId: other.id, status: "delivered" }))).toBe(false);
        expect((await ctx.storage().read((tx) => tx.deliveries.findById(org.id, done.id)))?.status).toBe("failed");
      });

      it("list pages a subscription's deliveries newest first, filtered by status and event name", async () => {
        const { webhook, deliveries } = await withDeliveries(9, (i) => ({ status: (["pending", "delivered", "failed"] as const)[i % 3] }));
        const elsewhere = await withDeliveries(2);
        const list = (filter: DeliveryFilter, size = 4) =>
          walkPages((page) => ctx.storage().read((tx) => tx.deliveries.list(org.id, webhook.id, filter, page)), size);
        expect(await list({})).toEqual(idsOf(newestFirst(deliveries)));
        expect(await list({ status: ["failed"] }, 2)).toEqual(idsOf(newestFirst(deliveries.filter((d) => d.status === "failed"))));
        expect(await list({ status: ["failed", "pending"] })).toEqual(idsOf(newestFirst(deliveries.filter((d) => d.status !== "delivered"))));
        expect(await list({ eventName: ["case.created"] })).toEqual(idsOf(newestFirst(deliveries)));
        expect(await list({ eventName: ["alert.created"] })).toEqual([]);
        expect(await list({ status: [] })).toEqual([]);
        expect(idsOf(await ctx.storage().read((tx) => tx.deliveries.list(org.id, elsewhere.webhook.id, {}, { limit: 10 })))).toEqual(
          idsOf(newestFirst(elsewhere.deliveries)),
        );
        const { org: other } = await ctx.seedOrganization();
        expect(await ctx.storage().read((tx) => tx.deliveries.list(other.id, webhook.id, {}, { limit: 10 }))).toEqual([]);
      });

      it("attempts come back in attempt order, for the given deliveries of the organization only", async () => {
        const { deliveries } = await withDeliveries(2);
        const f = ctx.fixtures();
        const [a, b] = deliveries as [Delivery, Delivery];
        const attempts = [
          attemptOf(f, a, 2, { responseStatus: 200, responseBody: "ok", errorClass: null }),
          attemptOf(f, b, 1, { responseStatus: null, responseBody: null, errorClass: "timeout", durationMs: 30_000 }),
          attemptOf(f, a, 1, { nextAttemptAt: plus(f.at(), 1000) }),
        ];
        await ctx.storage().transaction(async (tx) => {
          for (const attempt of attempts) await tx.deliveries.insertAttempt(attempt);
        });
        const ofA = await ctx.storage().read((tx) => tx.deliveries.attemptsOf(org.id, [a.id]));
        expect(ofA).toStrictEqual([attempts[2], attempts[0]]);
        expectNoUndefined(ofA);
        expect(await ctx.storage().read((tx) => tx.deliveries.attemptsOf(org.id, [a.id, b.id]))).toHaveLength(3);
        expect(await ctx.storage().read((tx) => tx.deliveries.attemptsOf(org.id, []))).toEqual([]);
        const { org: other } = await ctx.seedOrganization();
        expect(await ctx.storage().read((tx) => tx.deliveries.attemptsOf(other.id, [a.id, b.id]))).toEqual([]);
      });
    });

    describe("due claims (claimDue)", () => {
      it("takes pending deliveries that are due, oldest due first, and leases them", async () => {
        const start = ctx.fixtures().at();
        const { deliveries } = await withDeliveries(5, (i) => ({
          nextAttemptAt: plus(start, [3000, 1000, 2000, 60_000, 1000][i]!),
          status: i === 4 ? "failed" : "pending",
        }));
        const now = plus(start, 5000);
        const lease = plus(now, 120_000);
        const claimed = await ctx.storage().transaction((tx) => tx.deliveries.claimDue(10, now, lease));
        expect(idsOf(claimed)).toEqual([deliveries[1]!.id, deliveries[2]!.id, deliveries[0]!.id]);
        expect(claimed.every((d) => d.leaseUntil === lease)).toBe(true);
        expect((await ctx.storage().read((tx) => tx.deliveries.findById(org.id, deliveries[1]!.id)))?.leaseUntil).toBe(lease);
      });

      it("a leased delivery is not claimed again until its lease expires", async () => {
        const start = ctx.fixtures().at();
        await withDeliveries(2);
        const lease = plus(start, 60_000);
        expect(await ctx.storage().transaction((tx) => tx.deliveries.claimDue(10, start, lease))).toHaveLength(2);
        expect(await ctx.storage().transaction((tx) => tx.deliveries.claimDue(10, plus(start, 59_999), plus(start, 200_000)))).toEqual([]);
        const taken = await ctx.storage().transaction((tx) => tx.deliveries.claimDue(10, lease, plus(lease, 60_000)));
        expect(taken).toHaveLength(2);
        expect(taken.every((d) => d.leaseUntil === plus(lease, 60_000))).toBe(true);
      });

      it("respects the limit and, under concurrent claims, never hands out a delivery twice", async () => {
        const { deliveries } = await withDeliveries(24);
        const now = ctx.fixtures().at();
        expect(await ctx.storage().transaction((tx) => tx.deliveries.claimDue(0, now, plus(now, 1000)))).toEqual([]);
        const claims = await Promise.all(Array.from({ length: 8 }, () => ctx.storage().transaction((tx) => tx.deliveries.claimDue(4, now, plus(now, 60_000)))));
        const claimed = claims.flat().map((d) => d.id);
        expect(claims.every((c) => c.length <= 4)).toBe(true);
        expect(new Set(claimed).size).toBe(claimed.length);
        expect(claimed.length).toBe(24);
        expect([...claimed].sort()).toEqual(idsOf(deliveries).sort());
      });
    });

    describe("backlog (for monitoring)", () => {
      it("counts pending deliveries of every organization and gives the oldest undispatched event's time", async () => {
        expect(await ctx.storage().read((tx) => tx.deliveries.backlog())).toStrictEqual({ pendingDeliveries: 0, oldestUndispatchedEventAt: null });
        const { org: other } = await ctx.seedOrganization();
        const { events } = await withDeliveries(3, (i) => (i === 0 ? { status: "delivered", completedAt: ctx.fixtures().at() } : {}));
        const otherWebhook = await insertWebhook({}, other.id);
        const [otherEvent] = await insertEvents(other.id, 1);
        await ctx.storage().transaction((tx) => tx.deliveries.insertMany([deliveryOf(ctx.fixtures(), otherWebhook, otherEvent!, { status: "failed", completedAt: ctx.fixtures().at() })]));
        const [retrying] = await insertEvents(other.id, 1);
        await ctx.storage().transaction((tx) => tx.deliveries.insertMany([deliveryOf(ctx.fixtures(), otherWebhook, retrying!, { attempts: 2 })]));
        // Every event so far is undispatched: the oldest is the first one written.
        const all = await ctx.storage().read((tx) => tx.deliveries.backlog());
        expect(all.pendingDeliveries).toBe(3);
        expect(all.oldestUndispatchedEventAt).toBe(events[0]!.occurredAt);
        // Once fanned out, the oldest left is the next one; none left is null.
        await ctx.storage().transaction((tx) => tx.deliveries.claimEvents(3, ctx.fixtures().at()));
        const later = await ctx.storage().read((tx) => tx.deliveries.backlog());
        expect(later.oldestUndispatchedEventAt).toBe(otherEvent!.occurredAt);
        await ctx.storage().transaction((tx) => tx.deliveries.claimEvents(10, ctx.fixtures().at()));
        expect(await ctx.storage().read((tx) => tx.deliveries.backlog())).toStrictEqual({ pendingDeliveries: 3, oldestUndispatchedEventAt: null });
      });
    });

    describe("retention (purgeCompletedBefore)", () => {
      it("deletes finished deliveries completed before the cut-off, with their attempts, at most `limit` at a time", async () => {
        const start = ctx.fixtures().at();
        const { deliveries } = await withDeliveries(5, (i) => {
          const completedAt = [plus(start, 1000), plus(start, 2000), plus(start, 3000), null, plus(start, 9000)][i]!;
          return { status: completedAt === null ? "pending" : i === 1 ? "failed" : "delivered", completedAt };
        });
        await ctx.storage().transaction(async (tx) => {
          for (const d of deliveries) await tx.deliveries.insertAttempt(attemptOf(ctx.fixtures(), d, 1));
        });
        const cutOff = plus(start, 5000);
        expect(await ctx.storage().transaction((tx) => tx.deliveries.purgeCompletedBefore(cutOff, 2))).toBe(2);
        expect(await ctx.storage().transaction((tx) => tx.deliveries.purgeCompletedBefore(cutOff, 2))).toBe(1);
        expect(await ctx.storage().transaction((tx) => tx.deliveries.purgeCompletedBefore(cutOff, 2))).toBe(0);
        const left = await Promise.all(deliveries.map((d) => ctx.storage().read((tx) => tx.deliveries.findById(org.id, d.id))));
        expect(left.map((d) => d?.id ?? null)).toEqual([null, null, null, deliveries[3]!.id, deliveries[4]!.id]);
        const attempts = await ctx.storage().read((tx) => tx.deliveries.attemptsOf(org.id, idsOf(deliveries)));
        expect(attempts.map((a) => a.deliveryId).sort()).toEqual([deliveries[3]!.id, deliveries[4]!.id].sort());
      });
    });
  });
}
