import { describe, expect, it } from "vitest";
import type { AuditItem, DomainEvent, EventItem, GroupItemsWriter, UnitOfWork } from "../../core/index.js";
import { readBack, walkAuditPages } from "./audit-reads.js";
import { itemsPerRow } from "../../core/log/groups.js";
import { hashTlpEntry, verifyTlpChain } from "../../core/tlp/chain.js";
import { hashAuditRow } from "../../core/audit/chain.js";
import type { StoredTlpAuditEntry, TlpAuditEntry, TlpAuditItem } from "../../core/tlp/types.js";
import type { SuiteContext } from "./suite-context.js";
import { walkPages } from "./suite-context.js";

/** Audit items sharing their shape but for one irregular record (no changes) in the second chunk. */
const auditItemsOf = (count: number): AuditItem[] =>
  Array.from({ length: count }, (_, i) => ({
    resourceId: `task_${String(i).padStart(6, "0")}`,
    caseId: "case_000001",
    tlp: i % 4,
    changes:
      i === itemsPerRow + 3
        ? []
        : [
            { path: "title", before: `Täsk ${i}`, after: "Ünïcødé 🚨" },
            { path: "assigneeId", before: i % 3 === 0 ? null : `user_${i}`, after: "user_x" },
            { path: "tags", before: [], after: [{ name: "apt" }] },
          ],
  }));

const eventItemsOf = (count: number): EventItem[] =>
  Array.from({ length: count }, (_, i) => ({
    resourceId: `task_${String(i).padStart(6, "0")}`,
    tlp: i % 4,
    payload: { id: `task_${String(i).padStart(6, "0")}`, title: "Ünïcødé 🚨", number: i, assigneeId: "user_x", customFields: { b: 1, a: [i] }, closedAt: null },
  }));

const tlpItemsOf = (count: number): TlpAuditItem[] =>
  Array.from({ length: count }, (_, i) => ({ resourceId: `task_${String(i).padStart(6, "0")}`, action: "edit", tlpBefore: i % 3, tlpAfter: 1, outcome: i % 7 === 0 ? "denied" : "allowed" }));

/** Hands `items` to `writer` in pages of the given sizes, in order, checking its count after each. */
async function addInPages<T>(writer: GroupItemsWriter<T>, items: readonly T[], pages: readonly number[]): Promise<void> {
  let at = 0;
  for (const size of pages) {
    await writer.add(items.slice(at, (at += size)));
    expect(writer.count).toBe(at);
  }
}

/** A TLP group entry extending `head`, hashed over its items as the core hashes it. */
function tlpGroup(ctx: SuiteContext, organizationId: string, head: { seq: number; hash: string }, items: readonly TlpAuditItem[]): StoredTlpAuditEntry {
  const { hash: _single, ...unhashed } = ctx.fixtures().tlpEntry(organizationId, head, { resourceType: "task", resourceId: "bulk_0009", action: "edit", tlpBefore: 0, tlpAfter: 1 });
  const entry = { ...unhashed, items };
  return { ...entry, hash: hashTlpEntry(entry) };
}

/**
 * Group log rows of any size (core/log/groups.ts): a group of more than `itemsPerRow` records is
 * stored a chunk at a time, out of its row, and every reader sees exactly what a group held in
 * its row gave: the same entries, values and key order, in order, cursors inside any chunk.
 */
export function describeGroupRows(ctx: SuiteContext): void {
  describe("group rows of any size (items stored a chunk at a time)", () => {
    for (const count of [itemsPerRow, itemsPerRow + 1, 2 * itemsPerRow + 7]) {
      it(`${count} records: the audit trail, the outbox and the TLP chain read them as before, cursors inside any chunk`, async () => {
        const { org } = await ctx.seedOrganization();
        const f = ctx.fixtures();
        // An active subscription: the events wait for the claim below.
        await ctx.storage().transaction((tx) => tx.webhooks.insert(f.webhook(org.id)));
        const auditItems = auditItemsOf(count);
        const eventItems = eventItemsOf(count);
        const tlpItems = tlpItemsOf(count);
        // The same records written alone (before the groups, so older), to compare what readers get byte for byte (key order included).
        const samples = [0, itemsPerRow - 1, count - 1];
        const aloneAudit = samples.map((i) => f.auditEntry(org.id, { target: { type: "task", id: auditItems[i]!.resourceId }, changes: auditItems[i]!.changes }));
        const aloneEvents = samples.map((i) => f.event(org.id, { resourceId: eventItems[i]!.resourceId, tlp: eventItems[i]!.tlp, payload: eventItems[i]!.payload }));
        const audit = f.auditEntry(org.id, { action: "task.updated", target: { type: "task", id: "bulk_0009" }, bulkRequestId: "bulk_0009" });
        const event = f.event(org.id, { name: "task.updated", resourceId: "bulk_0009", payload: {}, tlp: null, bulkRequestId: "bulk_0009" });
        await ctx.storage().transaction(async (tx) => {
          for (const entry of aloneAudit) await tx.audit.append(entry);
          for (const alone of aloneEvents) await tx.events.append(alone);
          await tx.audit.append({ ...audit, items: auditItems });
          await tx.events.append({ ...event, items: eventItems });
          await tx.tlpAudit.append(tlpGroup(ctx, org.id, await tx.tlpAudit.head(org.id), tlpItems));
        });

        const auditExpanded = readBack([{ ...audit, items: auditItems }], samples.length + 1);
        const auditIds = await walkAuditPages((page) => ctx.storage().read((tx) => tx.audit.list(org.id, page)), 997);
        expect(auditIds).toEqual([...auditExpanded.map((e) => e.id)].reverse().concat([...aloneAudit].reverse().map((e) => e.id)));
        const auditRead = await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: count + 3 }));
        expect(auditRead.slice(0, count)).toStrictEqual([...auditExpanded].reverse());
        const aloneRead = auditRead.slice(count).reverse();
        samples.forEach((i, k) => expect(JSON.stringify(auditRead[count - 1 - i]!.changes)).toBe(JSON.stringify(aloneRead[k]!.changes)));

        const eventsExpanded: DomainEvent[] = eventItems.map((item, i) => ({ ...event, id: `${event.id}.${i}`, resourceId: item.resourceId, tlp: item.tlp, payload: item.payload }));
        const grouped = (await ctx.storage().read((tx) => tx.events.findRow(org.id, event.id)))!;
        expect(grouped).toStrictEqual(eventsExpanded);
        const single = await ctx.storage().read((tx) => Promise.all(aloneEvents.map((alone) => tx.events.findById(org.id, alone.id))));
        samples.forEach((i, k) => expect(JSON.stringify(grouped[i]!.payload)).toBe(JSON.stringify(single[k]!.payload)));
        for (const position of [0, itemsPerRow - 1, Math.min(itemsPerRow, count - 1), count - 1]) {
          expect(await ctx.storage().read((tx) => tx.events.findById(org.id, `${event.id}.${position}`))).toStrictEqual(eventsExpanded[position]);
        }
        expect(await ctx.storage().read((tx) => tx.events.findById(org.id, `${event.id}.${count}`))).toBeNull();
        const eventIds = await walkPages((page) => ctx.storage().read((tx) => tx.events.list(org.id, page)), 1_499);
        expect(eventIds.slice(0, count)).toEqual([...eventsExpanded.map((e) => e.id)].reverse());
        const claimed = await ctx.storage().transaction((tx) => tx.deliveries.claimEvents(10, f.at(), async () => true));
        expect(claimed).toStrictEqual([...single, ...eventsExpanded]);
        // Claimed (its row updated): the group still reads whole.
        expect(await ctx.storage().read((tx) => tx.events.findRow(org.id, event.id))).toStrictEqual(eventsExpanded);

        const chain = await ctx.storage().read((tx) => tx.tlpAudit.chain(org.id, 0, 10));
        expect(chain).toHaveLength(1);
        expect(chain[0]!.items).toStrictEqual(tlpItems);
        expect(verifyTlpChain(chain)).toEqual({ ok: true, checked: 1 });
        const tlpIds = await walkPages((page) => ctx.storage().read((tx) => tx.tlpAudit.list(org.id, {}, page)), 1_001);
        expect(tlpIds).toEqual(tlpItems.map((_, i) => `${chain[0]!.id}.${i}`).reverse());
        const denied = await ctx.storage().read((tx) => tx.tlpAudit.list(org.id, { outcome: "denied", maxTlp: 1 }, { limit: count }));
        const expectedDenied: TlpAuditEntry[] = tlpItems
          .map((item, i) => ({ item, i }))
          .filter(({ item }) => item.outcome === "denied" && (item.tlpBefore ?? 0) <= 1)
          .map(({ item, i }) => {
            const { items: _items, ...entry } = chain[0]!;
            return { ...entry, ...item, id: `${entry.id}.${i}` };
          })
          .reverse();
        expect(denied).toStrictEqual(expectedDenied);
      });
    }

    // A bulk hands its event's items over page by page (EventRepository.groupItems): whatever the
    // page sizes, readers get what one append of the whole group gives, and so does a writer's
    // group in a unit that fails (nothing).
    for (const pages of [[0], [7], [itemsPerRow], [itemsPerRow - 1, 1, 1], [250, 250, itemsPerRow, 3 * itemsPerRow + 5, 0, 1]]) {
      it(`a group event written page by page (${pages.join(", ")}) reads as the group appended whole`, async () => {
        const { org } = await ctx.seedOrganization();
        const f = ctx.fixtures();
        const count = pages.reduce((a, b) => a + b, 0);
        const items = eventItemsOf(count);
        const whole = f.event(org.id, { name: "task.updated", resourceId: "bulk_0011", payload: {}, tlp: null, bulkRequestId: "bulk_0011" });
        const paged = f.event(org.id, { name: "task.updated", resourceId: "bulk_0012", payload: {}, tlp: null, bulkRequestId: "bulk_0012" });
        await ctx.storage().transaction(async (tx) => {
          await tx.events.append({ ...whole, items });
          const writer = tx.events.groupItems(org.id, paged.id);
          await addInPages(writer, items, pages);
          await tx.events.appendGroup(paged, writer);
        });
        const rename = (events: DomainEvent[] | null, from: DomainEvent, to: DomainEvent) => events?.map((e) => ({ ...e, id: e.id.replace(from.id, to.id), resourceId: e.resourceId === from.resourceId ? to.resourceId : e.resourceId, bulkRequestId: to.bulkRequestId }));
        const wholeRead = await ctx.storage().read((tx) => tx.events.findRow(org.id, whole.id));
        expect(await ctx.storage().read((tx) => tx.events.findRow(org.id, paged.id))).toStrictEqual(rename(wholeRead, whole, paged));
        if (count > 0) expect(await ctx.storage().read((tx) => tx.events.findById(org.id, `${paged.id}.${count - 1}`))).toStrictEqual({ ...rename(wholeRead, whole, paged)!.at(-1)!, id: `${paged.id}.${count - 1}` });

        const failed = f.event(org.id, { name: "task.updated", resourceId: "bulk_0013", payload: {}, tlp: null, bulkRequestId: "bulk_0013" });
        const failing = ctx.storage().transaction(async (tx) => {
          const writer = tx.events.groupItems(org.id, failed.id);
          for (const size of pages) await writer.add(items.slice(0, size));
          await tx.events.appendGroup(failed, writer);
          throw new Error("fault after the group");
        });
        await expect(failing).rejects.toThrow("fault after the group");
        expect(await ctx.storage().read((tx) => tx.events.findRow(org.id, failed.id))).toBeNull();
      });
    }

    // A bulk hands its audit entry's items over page by page too (AuditRepository.groupItems),
    // and the entry's hash covers the items themselves: the row stores, chains and reads back
    // exactly as the same group appended whole, and a failing unit leaves none of it.
    for (const pages of [[0, 3], [itemsPerRow], [itemsPerRow - 1, 1, 1], [250, 250, itemsPerRow, 3 * itemsPerRow + 5, 0, 1]]) {
      it(`a group audit entry written page by page (${pages.join(", ")}) stores and chains as the group appended whole`, async () => {
        const { org } = await ctx.seedOrganization();
        const f = ctx.fixtures();
        const count = pages.reduce((a, b) => a + b, 0);
        const items = auditItemsOf(count);
        const entry = (id: string) => f.auditEntry(org.id, { id, action: "task.updated", target: { type: "task", id: "bulk_0016" }, bulkRequestId: "bulk_0016" });
        const whole = { ...entry("aud_whole"), items };
        const paged = { ...entry("aud_paged"), items };
        await ctx.storage().transaction(async (tx) => {
          await tx.audit.append(whole);
          const writer = tx.audit.groupItems(org.id, paged.id);
          await addInPages(writer, items, pages);
          await tx.audit.appendGroup(paged, writer);
        });
        const [wholeRow, pagedRow] = await ctx.storage().read((tx) => tx.audit.chain(org.id, 0, 10));
        expect(pagedRow!.seq).toBe(1 + count);
        expect(pagedRow!.prevHash).toBe(wholeRow!.hash);
        expect(pagedRow!.items).toStrictEqual(wholeRow!.items);
        expect(pagedRow!.items).toStrictEqual(items);
        const { hash: pagedHash, ...pagedRest } = pagedRow!;
        expect(pagedHash).toBe(hashAuditRow(pagedRest));
        expect(await ctx.storage().read((tx) => tx.audit.head(org.id))).toEqual({ seq: 2 * count, hash: pagedHash });

        const failed = { ...entry("aud_failed"), items };
        const failing = ctx.storage().transaction(async (tx) => {
          const writer = tx.audit.groupItems(org.id, failed.id);
          await addInPages(writer, items, pages);
          await tx.audit.appendGroup(failed, writer);
          throw new Error("fault after the group");
        });
        await expect(failing).rejects.toThrow("fault after the group");
        expect(await ctx.storage().read((tx) => tx.audit.chain(org.id, 0, 10))).toHaveLength(2);
        expect(await ctx.storage().read((tx) => tx.audit.head(org.id))).toEqual({ seq: 2 * count, hash: pagedHash });
      });
    }

    it("an audit appendGroup takes only the writer groupItems gave for that entry, holding exactly its items", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const items = auditItemsOf(3);
      const entry = { ...f.auditEntry(org.id, { action: "task.updated", target: { type: "task", id: "bulk_0017" }, bulkRequestId: "bulk_0017" }), items };
      const other = f.auditEntry(org.id);
      const refusals = [
        ["another entry's writer", (tx: UnitOfWork) => tx.audit.groupItems(org.id, other.id), items, "appendGroup takes the writer groupItems gave for this entry"],
        ["a writer of fewer items", (tx: UnitOfWork) => tx.audit.groupItems(org.id, entry.id), items.slice(0, 2), "a group's row must list the items its writer stored"],
      ] as const;
      for (const [, writerOf, added, message] of refusals) {
        const attempt = ctx.storage().transaction(async (tx) => {
          const writer = writerOf(tx);
          await writer.add(added);
          await tx.audit.appendGroup(entry, writer);
        });
        await expect(attempt).rejects.toThrow(message);
      }
      const forged = ctx.storage().transaction((tx) => tx.audit.appendGroup(entry, { add: async () => undefined, count: 3 }));
      await expect(forged).rejects.toThrow("appendGroup takes the writer groupItems gave for this entry");
      expect(await ctx.storage().read((tx) => tx.audit.chain(org.id, 0, 10))).toEqual([]);
    });

    it("appendGroup takes only the writer groupItems gave for that event", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const event = f.event(org.id, { name: "task.updated", resourceId: "bulk_0014", payload: {}, tlp: null, bulkRequestId: "bulk_0014" });
      const other = f.event(org.id, { name: "task.updated", resourceId: "bulk_0015", payload: {}, tlp: null, bulkRequestId: "bulk_0015" });
      const attempt = ctx.storage().transaction(async (tx) => {
        const writer = tx.events.groupItems(org.id, other.id);
        await writer.add(eventItemsOf(3));
        await tx.events.appendGroup(event, writer);
      });
      await expect(attempt).rejects.toThrow("appendGroup takes the writer groupItems gave for this event");
      const forged = ctx.storage().transaction((tx) => tx.events.appendGroup(event, { add: async () => undefined, count: 0 }));
      await expect(forged).rejects.toThrow("appendGroup takes the writer groupItems gave for this event");
      expect(await ctx.storage().read((tx) => tx.events.findRow(org.id, event.id))).toBeNull();
    });

    it("a large group is all or nothing with its unit: a failure after it leaves no trace, and the same ids write again", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const audit = f.auditEntry(org.id, { action: "task.deleted", target: { type: "task", id: "bulk_0010" }, bulkRequestId: "bulk_0010" });
      const event = f.event(org.id, { name: "task.deleted", resourceId: "bulk_0010", payload: {}, tlp: null, bulkRequestId: "bulk_0010" });
      const count = 2 * itemsPerRow + 1;
      const failing = ctx.storage().transaction(async (tx) => {
        await tx.audit.append({ ...audit, items: auditItemsOf(count) });
        await tx.events.append({ ...event, items: eventItemsOf(count) });
        await tx.tlpAudit.append(tlpGroup(ctx, org.id, await tx.tlpAudit.head(org.id), tlpItemsOf(count)));
        throw new Error("fault after the group");
      });
      await expect(failing).rejects.toThrow("fault after the group");
      expect(await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 10 }))).toEqual([]);
      expect(await ctx.storage().read((tx) => tx.events.findRow(org.id, event.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.tlpAudit.chain(org.id, 0, 10))).toEqual([]);
      await ctx.storage().transaction(async (tx) => {
        await tx.audit.append({ ...audit, items: auditItemsOf(count) });
        await tx.events.append({ ...event, items: eventItemsOf(count) });
        await tx.tlpAudit.append(tlpGroup(ctx, org.id, await tx.tlpAudit.head(org.id), tlpItemsOf(count)));
      });
      expect(await ctx.storage().read((tx) => tx.events.findRow(org.id, event.id))).toHaveLength(count);
      expect(await ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 1 }))).toStrictEqual(readBack([{ ...audit, items: auditItemsOf(count) }]).slice(-1));
    });

    it("a TLP group's items altered in their chunk rows behind the port break its hash: the chain's verification names the row", async () => {
      const { org } = await ctx.seedOrganization();
      const items = tlpItemsOf(itemsPerRow + 10);
      const entry = tlpGroup(ctx, org.id, { seq: 0, hash: "" }, items);
      await ctx.storage().transaction((tx) => tx.tlpAudit.append(entry));
      expect(verifyTlpChain(await ctx.storage().read((tx) => tx.tlpAudit.chain(org.id, 0, 10)))).toEqual({ ok: true, checked: 1 });
      // The last chunk's records rewritten: one record's outcome flipped.
      const forged = items.slice(itemsPerRow).map((item, i) => (i === 3 ? { ...item, outcome: item.outcome === "allowed" ? "denied" : "allowed" } : item));
      await ctx.raw().exec("UPDATE log_group_items SET items = ? WHERE organization_id = ? AND id = (SELECT max(id) FROM log_group_items WHERE organization_id = ?)", [JSON.stringify(forged), org.id, org.id]);
      const chain = await ctx.storage().read((tx) => tx.tlpAudit.chain(org.id, 0, 10));
      expect(chain[0]!.items![itemsPerRow + 3]!.outcome).not.toBe(items[itemsPerRow + 3]!.outcome);
      expect(verifyTlpChain(chain)).toEqual({ ok: false, checked: 1, firstBad: { id: entry.id, seq: 1, reason: "hash" } });
    });
  });
}
