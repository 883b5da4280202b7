import { beforeEach, describe, expect, it } from "vitest";
import type { Organization, StoredAuditSink } from "../../core/index.js";
import type { Fixtures } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, idsOf } from "./suite-context.js";

function sinkOf(f: Fixtures, organizationId: string, overrides: Partial<StoredAuditSink> = {}): StoredAuditSink {
  return {
    id: f.ids.next("snk"),
    organizationId,
    name: "SOC SIEM",
    config: { target: "tls://siem.example.com:6514", servername: "siem.example.com", facility: 13, enterpriseId: "32473" },
    status: "active",
    createdAt: f.at(),
    updatedAt: f.at(),
    createdBy: null,
    grant: { keyId: null, tlpClearance: 2, scopes: ["audit:read", "audit:manage"] },
    ...overrides,
  };
}

/** Organizations' syslog sinks and their cursors: the port's AuditSinkRepository. */
export function describeAuditSinks(ctx: SuiteContext): void {
  describe("audit sinks", () => {
    let org: Organization;
    let other: Organization;
    beforeEach(async () => {
      ({ org } = await ctx.seedOrganization());
      ({ org: other } = await ctx.seedOrganization());
    });
    const insert = async (organizationId: string, overrides: Partial<StoredAuditSink> = {}): Promise<StoredAuditSink> => {
      const sink = sinkOf(ctx.fixtures(), organizationId, overrides);
      await ctx.storage().transaction((tx) => tx.auditSinks.insert(sink));
      return sink;
    };

    it("insert then findById returns the same record, config document and grant intact; another organization finds nothing", async () => {
      const sink = await insert(org.id);
      expect(await ctx.storage().read((tx) => tx.auditSinks.findById(org.id, sink.id))).toStrictEqual(sink);
      expect(await ctx.storage().read((tx) => tx.auditSinks.findById(other.id, sink.id))).toBeNull();
      await expectConflict(ctx.storage().transaction((tx) => tx.auditSinks.insert(sink)));
    });

    it("update writes the mutable fields and never the grant or the creation fields", async () => {
      const sink = await insert(org.id);
      const changed: StoredAuditSink = { ...sink, name: "Renamed", status: "paused", config: { target: "tcp://siem.example.com:514", facility: 16, enterpriseId: "1.2" }, updatedAt: ctx.fixtures().at() };
      await ctx.storage().transaction((tx) => tx.auditSinks.update({ ...changed, createdBy: "user_x", grant: { keyId: "key_x", tlpClearance: 4, scopes: [] } }));
      expect(await ctx.storage().read((tx) => tx.auditSinks.findById(org.id, sink.id))).toStrictEqual(changed);
      // Another organization's update touches nothing.
      expect(await ctx.storage().transaction((tx) => tx.auditSinks.update({ ...changed, organizationId: other.id, name: "Hijacked" }))).toBe(false);
      expect((await ctx.storage().read((tx) => tx.auditSinks.findById(org.id, sink.id)))!.name).toBe("Renamed");
    });

    it("lists an organization's sinks newest first, and activeAfter every organization's active ones in id order, page by page", async () => {
      const a = await insert(org.id);
      const paused = await insert(org.id, { status: "paused" });
      const b = await insert(other.id);
      expect(idsOf(await ctx.storage().read((tx) => tx.auditSinks.list(org.id, { limit: 10 })))).toEqual([paused.id, a.id]);
      const mine = new Set([a.id, paused.id, b.id]);
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: StoredAuditSink[] = await ctx.storage().read((tx) => tx.auditSinks.activeAfter(after, 1));
        if (page.length === 0) break;
        expect(page).toHaveLength(1);
        after = page[0]!.id;
        if (mine.has(after)) {
          seen.push(after);
          expect(page[0]).toStrictEqual(after === a.id ? a : b);
        }
      }
      expect(seen).toEqual([a.id, b.id]);
    });

    it("keeps a cursor per sink: 0 before any, created then moved, scoped to the organization, removed with the sink", async () => {
      const sink = await insert(org.id);
      const f = ctx.fixtures();
      expect(await ctx.storage().read((tx) => tx.auditSinks.cursor(org.id, sink.id))).toBe(0);
      await ctx.storage().transaction((tx) => tx.auditSinks.setCursor(org.id, sink.id, 7, f.at()));
      expect(await ctx.storage().read((tx) => tx.auditSinks.cursor(org.id, sink.id))).toBe(7);
      // Beyond 32 bits: seq is a 64-bit column.
      await ctx.storage().transaction((tx) => tx.auditSinks.setCursor(org.id, sink.id, 2 ** 40, f.at()));
      expect(await ctx.storage().read((tx) => tx.auditSinks.cursor(org.id, sink.id))).toBe(2 ** 40);
      expect(await ctx.storage().read((tx) => tx.auditSinks.cursor(other.id, sink.id))).toBe(0);
      expect(await ctx.storage().transaction((tx) => tx.auditSinks.delete(other.id, sink.id))).toBe(false);
      expect(await ctx.storage().transaction((tx) => tx.auditSinks.delete(org.id, sink.id))).toBe(true);
      expect(await ctx.storage().read((tx) => tx.auditSinks.findById(org.id, sink.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.auditSinks.cursor(org.id, sink.id))).toBe(0);
    });

    it("leases a sink to one holder at a time: taken when free or run out, renewed by its holder, given up; the cursor moves only under it", async () => {
      const sink = await insert(org.id);
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.auditSinks.setCursor(org.id, sink.id, 5, "2026-03-01T12:00:00.000Z"));
      const claim = (holder: string, now: string, until: string, organizationId = org.id) => storage.transaction((tx) => tx.auditSinks.claimLease(organizationId, sink.id, holder, now, until));
      const move = (holder: string, seq: number, at: string) => storage.transaction((tx) => tx.auditSinks.setLeasedCursor(org.id, sink.id, holder, seq, at));
      const cursor = () => storage.read((tx) => tx.auditSinks.cursor(org.id, sink.id));

      // Nobody holds it: the cursor does not move for anyone.
      expect(await move("host-a", 6, "2026-03-01T12:00:00.000Z")).toBe(false);
      expect(await claim("host-a", "2026-03-01T12:00:00.000Z", "2026-03-01T12:00:30.000Z")).toBe(true);
      // Held: another holder is refused until it runs out; another organization never reaches it.
      expect(await claim("host-b", "2026-03-01T12:00:10.000Z", "2026-03-01T12:00:40.000Z")).toBe(false);
      expect(await claim("host-b", "2026-03-01T12:00:31.000Z", "2026-03-01T12:01:01.000Z", other.id)).toBe(false);
      expect(await move("host-b", 6, "2026-03-01T12:00:10.000Z")).toBe(false);
      expect(await move("host-a", 6, "2026-03-01T12:00:10.000Z")).toBe(true);
      expect(await cursor()).toBe(6);
      // Its holder renews it.
      expect(await claim("host-a", "2026-03-01T12:00:20.000Z", "2026-03-01T12:00:50.000Z")).toBe(true);
      expect(await claim("host-b", "2026-03-01T12:00:40.000Z", "2026-03-01T12:01:10.000Z")).toBe(false);
      // Run out: the holder can no longer move the cursor, and another takes it over.
      expect(await move("host-a", 7, "2026-03-01T12:00:51.000Z")).toBe(false);
      expect(await claim("host-b", "2026-03-01T12:00:51.000Z", "2026-03-01T12:01:21.000Z")).toBe(true);
      expect(await claim("host-a", "2026-03-01T12:00:52.000Z", "2026-03-01T12:01:22.000Z")).toBe(false);
      expect(await move("host-b", 7, "2026-03-01T12:00:52.000Z")).toBe(true);
      expect(await cursor()).toBe(7);
      // Given up by someone else: nothing; by its holder: free at once.
      await storage.transaction((tx) => tx.auditSinks.releaseLease(org.id, sink.id, "host-a"));
      expect(await claim("host-a", "2026-03-01T12:00:53.000Z", "2026-03-01T12:01:23.000Z")).toBe(false);
      await storage.transaction((tx) => tx.auditSinks.releaseLease(org.id, sink.id, "host-b"));
      expect(await move("host-b", 8, "2026-03-01T12:00:54.000Z")).toBe(false);
      expect(await claim("host-a", "2026-03-01T12:00:54.000Z", "2026-03-01T12:01:24.000Z")).toBe(true);
      // Moving the cursor outside the lease (setCursor, as at creation) leaves the lease as it is.
      await storage.transaction((tx) => tx.auditSinks.setCursor(org.id, sink.id, 9, "2026-03-01T12:00:55.000Z"));
      expect(await claim("host-b", "2026-03-01T12:00:56.000Z", "2026-03-01T12:01:26.000Z")).toBe(false);
      expect(await move("host-a", 10, "2026-03-01T12:00:56.000Z")).toBe(true);
      expect(await cursor()).toBe(10);
    });
  });
}
