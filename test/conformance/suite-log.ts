import { describe, expect, it } from "vitest";
import type { DomainEvent, NewAuditEvent } from "../../core/index.js";
import { readBack, walkAuditPages } from "./audit-reads.js";
import { shuffled } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectNoUndefined, walkPages } from "./suite-context.js";

/** The audit trail and the outbox: append-only, listed newest first, scoped by organization. */
export function describeLogs(ctx: SuiteContext): void {
  describe("audit log", () => {
    it("append then list returns the events newest first, each at its chain position, every field intact", async () => {
      const { org, user } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const bare = f.auditEntry(org.id);
      const full = f.auditEntry(org.id, {
        actor: { type: "apiKey", id: f.ids.next("key"), onBehalfOf: user.id },
        action: "case.updated",
        target: { type: "case", id: f.ids.next("case"), caseId: "case_00000000000000000000000001" },
        outcome: "denied",
        changes: [
          { path: "title", before: "Old", after: "New ☕" },
          { path: "tags", before: [], after: [{ name: "apt", color: "#123456" }] },
          { path: "assigneeId", before: null, after: user.id },
          { path: "customFields.a", before: { b: [1, 2.5, true, null] }, after: null },
        ],
        requestId: "req_01",
        ip: "2001:db8::1",
        userAgent: "curl/8.5.0",
        tlp: 3,
      });
      await ctx.storage().transaction(async (tx) => {
        await tx.audit.append(full);
        await tx.audit.append(bare);
      });
      const found = await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 10 }));
      expect(found).toStrictEqual(readBack([full, bare]).reverse());
      expect(found[1]!.changes).toStrictEqual(full.changes);
      expectNoUndefined(found);
    });

    it("pages by seq, newest first, and never shows another organization's events", async () => {
      const { org: a } = await ctx.seedOrganization();
      const { org: b } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const mine: NewAuditEvent[] = [];
      const theirs: NewAuditEvent[] = [];
      for (let i = 0; i < 15; i++) {
        mine.push(f.auditEntry(a.id));
        theirs.push(f.auditEntry(b.id));
      }
      await ctx.storage().transaction(async (tx) => {
        for (const entry of shuffled([...mine, ...theirs])) await tx.audit.append(entry);
      });
      // Chain order is append order: the shuffled order, per organization.
      const appended = async (organizationId: string) => (await ctx.storage().read((tx) => tx.audit.pageAfter(organizationId, 0, 100))).map((e) => e.id);
      const walk = (organizationId: string) => walkAuditPages((page) => ctx.storage().read((tx) => tx.audit.list(organizationId, page)), 4);
      expect(await walk(a.id)).toEqual((await appended(a.id)).reverse());
      expect(await walk(b.id)).toEqual((await appended(b.id)).reverse());
      expect((await appended(a.id)).sort()).toEqual(mine.map((e) => e.id).sort());
      expect(await ctx.storage().read((tx) => tx.audit.list(ctx.fixtures().ids.next("org"), { limit: 10 }))).toEqual([]);
    });
  });

  describe("events (outbox)", () => {
    it("append then list returns the events newest first, payload intact", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const bare = f.event(org.id, { tlp: 0 });
      const full = f.event(org.id, {
        name: "case.updated",
        payload: {
          id: "case_x",
          title: "Ünïcødé 🚨",
          tags: [{ name: "apt" }],
          customFields: { nested: { list: [1, "2", false, null, { deep: [] }] } },
          closedAt: null,
          number: 12,
        },
        tlp: 4,
        bulkRequestId: "bulk_0001",
      });
      const noTlp = f.event(org.id);
      // Appended out of id order: the list orders by id, not by arrival.
      await ctx.storage().transaction(async (tx) => {
        await tx.events.append(full);
        await tx.events.append(noTlp);
        await tx.events.append(bare);
      });
      const found = await ctx.storage().read((tx) => tx.events.list(org.id, { limit: 10 }));
      expect(found).toStrictEqual([noTlp, full, bare]);
      expect(found[0]!.tlp).toBeNull();
      expect(found[2]!.tlp).toBe(0);
      expectNoUndefined(found);
    });

    it("pages by id, newest first, and never shows another organization's events", async () => {
      const { org: a } = await ctx.seedOrganization();
      const { org: b } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const mine: DomainEvent[] = [];
      const theirs: DomainEvent[] = [];
      for (let i = 0; i < 13; i++) {
        mine.push(f.event(a.id, { payload: { i } }));
        theirs.push(f.event(b.id, { payload: { i } }));
      }
      await ctx.storage().transaction(async (tx) => {
        for (const event of shuffled([...mine, ...theirs])) await tx.events.append(event);
      });
      const walk = (organizationId: string) => walkPages((page) => ctx.storage().read((tx) => tx.events.list(organizationId, page)), 5);
      expect(await walk(a.id)).toEqual(mine.map((e) => e.id).reverse());
      expect(await walk(b.id)).toEqual(theirs.map((e) => e.id).reverse());
    });

    it("finds one event by id within its organization only", async () => {
      const { org: a } = await ctx.seedOrganization();
      const { org: b } = await ctx.seedOrganization();
      const event = ctx.fixtures().event(a.id, { payload: { title: "Ünïcødé" }, tlp: 3, bulkRequestId: "bulk_0002" });
      await ctx.storage().transaction((tx) => tx.events.append(event));
      expect(await ctx.storage().read((tx) => tx.events.findById(a.id, event.id))).toStrictEqual(event);
      expect(await ctx.storage().read((tx) => tx.events.findById(b.id, event.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.events.findById(a.id, "evt_00000000000000000000000000"))).toBeNull();
    });

    it("a group event (one row for many records) reads as one event per record: list, findById, findRow", async () => {
      const { org: a } = await ctx.seedOrganization();
      const { org: b } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const single = f.event(a.id);
      const group = f.event(a.id, { resourceId: "bulk_0003", payload: {}, tlp: null, bulkRequestId: "bulk_0003" });
      const items = [0, 1, 2].map((i) => ({ resourceId: `task_${i}`, tlp: i + 1, payload: { id: `task_${i}`, title: `Task ${i}` } }));
      await ctx.storage().transaction(async (tx) => {
        await tx.events.append(single);
        await tx.events.append({ ...group, items });
      });
      const expanded: DomainEvent[] = items.map((item, i) => ({ ...group, id: `${group.id}.${i}`, resourceId: item.resourceId, tlp: item.tlp, payload: item.payload }));
      expect(await ctx.storage().read((tx) => tx.events.list(a.id, { limit: 10 }))).toStrictEqual([...expanded].reverse().concat(single));
      expect(await walkPages((page) => ctx.storage().read((tx) => tx.events.list(a.id, page)), 2)).toEqual([...expanded.map((e) => e.id)].reverse().concat(single.id));
      expect(await ctx.storage().read((tx) => tx.events.findById(a.id, expanded[1]!.id))).toStrictEqual(expanded[1]);
      expect(await ctx.storage().read((tx) => tx.events.findById(a.id, group.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.events.findById(a.id, `${group.id}.3`))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.events.findById(b.id, expanded[0]!.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.events.findRow(a.id, group.id))).toStrictEqual(expanded);
      expect(await ctx.storage().read((tx) => tx.events.findRow(a.id, single.id))).toStrictEqual([single]);
      expect(await ctx.storage().read((tx) => tx.events.findRow(b.id, group.id))).toBeNull();
    });

    it("a group event's records read back byte for byte as each would alone (key order too), however many values they share", async () => {
      const { org: a } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const group = f.event(a.id, { resourceId: "bulk_0004", payload: {}, tlp: null, bulkRequestId: "bulk_0004" });
      // Keys of every length and some not ASCII (a database may reorder keys, by their bytes);
      // shared values, per-record values, nested objects and arrays.
      const payloadOf = (i: number) => ({ zeta: "same", id: `task_${i}`, ä: i, b: null, organizationId: a.id, tags: [{ name: `t${i}` }], order: i % 2, é: { y: 1, x: [i] } });
      const items = [0, 1, 2, 3].map((i) => ({ resourceId: `task_${i}`, tlp: 2, payload: payloadOf(i) }));
      const alone = items.map((item, i) => f.event(a.id, { resourceId: item.resourceId, payload: payloadOf(i), tlp: 2 }));
      await ctx.storage().transaction(async (tx) => {
        await tx.events.append({ ...group, items });
        for (const event of alone) await tx.events.append(event);
      });
      const grouped = (await ctx.storage().read((tx) => tx.events.findRow(a.id, group.id)))!;
      const single = await ctx.storage().read((tx) => Promise.all(alone.map((event) => tx.events.findById(a.id, event.id))));
      expect(grouped.map((event) => JSON.stringify(event.payload))).toEqual(single.map((event) => JSON.stringify(event!.payload)));
    });
  });

  describe("large group entries (a bulk over thousands of records: their items stored a chunk at a time)", () => {
    it("a group audit entry and a group event of 2 500 records read back one entry per record, intact; a claim expands the event the same", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      // An active subscription: the event waits for the claim below.
      await ctx.storage().transaction((tx) => tx.webhooks.insert(f.webhook(org.id)));
      const count = 2500;
      const audit = f.auditEntry(org.id, { action: "task.updated", target: { type: "task", id: "bulk_0005" }, bulkRequestId: "bulk_0005" });
      const auditItems = Array.from({ length: count }, (_, i) => ({
        resourceId: `task_${i}`,
        caseId: `case_${i % 2}`,
        tlp: i % 5,
        changes: [
          { path: "assigneeId", before: i % 3 === 0 ? null : `user_${i}`, after: "user_x" },
          { path: "title", before: `Täsk ${i}`, after: "Ünïcødé 🚨" },
        ],
      }));
      const event = f.event(org.id, { name: "task.updated", resourceId: "bulk_0005", payload: {}, tlp: null, bulkRequestId: "bulk_0005" });
      const eventItems = Array.from({ length: count }, (_, i) => ({ resourceId: `task_${i}`, tlp: i % 4, payload: { id: `task_${i}`, title: "Ünïcødé 🚨", number: i, assigneeId: "user_x", tags: [{ name: `t${i % 5}` }], closedAt: null } }));
      await ctx.storage().transaction(async (tx) => {
        await tx.audit.append({ ...audit, items: auditItems });
        await tx.events.append({ ...event, items: eventItems });
      });
      const auditRead = await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 100 }));
      expect(auditRead).toStrictEqual(readBack([{ ...audit, items: auditItems }]).slice(-100).reverse());
      const expanded: DomainEvent[] = eventItems.map((item, i) => ({ ...event, id: `${event.id}.${i}`, resourceId: item.resourceId, tlp: item.tlp, payload: item.payload }));
      expect(await ctx.storage().read((tx) => tx.events.findRow(org.id, event.id))).toStrictEqual(expanded);
      const claimed = await ctx.storage().transaction((tx) => tx.deliveries.claimEvents(10, f.at(), async () => true));
      expect(claimed).toStrictEqual(expanded);
    });
  });
}
