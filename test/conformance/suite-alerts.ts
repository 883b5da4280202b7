import { beforeEach, describe, expect, it } from "vitest";
import type { Alert, AlertFilter, AlertSourceCountFilter, Observable, Organization } from "../../core/index.js";
import { isCaseKitError } from "../../core/index.js";
import { alertRecord as liveAlert } from "./alert-record.js";
import type { Fixtures } from "./fixtures.js";
import { shuffled } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined, idsOf, newestFirst, walkPages } from "./suite-context.js";

/** A complete live alert, created now. */
function alertRecord(f: Fixtures, organizationId: string, overrides: Partial<Alert> = {}): Alert {
  return liveAlert(f.ids.next("alert"), organizationId, f.at(), overrides);
}

/** The list semantics the port promises, written out plainly. */
function matches(record: Alert, filter: AlertFilter): boolean {
  const anyOf = <T>(values: readonly T[] | undefined, value: T | null) => values === undefined || (value !== null && values.includes(value));
  const time = (iso: string) => Date.parse(iso);
  return (
    (filter.includeDeleted === true || record.deletedAt === null) &&
    record.tlp <= filter.maxTlp &&
    anyOf(filter.statusValue, record.statusValue) &&
    anyOf(filter.severity, record.severity) &&
    anyOf(filter.tlp, record.tlp) &&
    anyOf(filter.assigneeId, record.assigneeId) &&
    anyOf(filter.source, record.source) &&
    anyOf(filter.typeValue, record.typeValue) &&
    (filter.tag === undefined || record.tags.some((t) => filter.tag!.includes(t.name))) &&
    (filter.q === undefined || record.title.toLowerCase().includes(filter.q.toLowerCase())) &&
    (filter.createdAfter === undefined || time(record.createdAt) > time(filter.createdAfter)) &&
    (filter.createdBefore === undefined || time(record.createdAt) < time(filter.createdBefore))
  );
}

/** Alerts: round trips, the idempotency key among live rows, soft delete, lists, the metric, bulk reads and writes. */
export function describeAlerts(ctx: SuiteContext): void {
  describe("alerts", () => {
    let org: Organization;

    beforeEach(async () => {
      ({ org } = await ctx.seedOrganization());
    });

    const find = (organizationId: string, id: string, includeDeleted = false) =>
      ctx.storage().read((tx) => tx.alerts.findById(organizationId, id, { includeDeleted }));
    const insertAll = (records: readonly Alert[]) =>
      ctx.storage().transaction(async (tx) => {
        for (const r of records) await tx.alerts.insert(r);
      });

    it("insert then findById returns the record intact, with null for absent values", async () => {
      const f = ctx.fixtures();
      const full = alertRecord(f, org.id, {
        description: "Logins from Lisbon and Osaka",
        severity: 4,
        tlp: 3,
        pap: 1,
        typeValue: "identity",
        sourceRef: "siem-1",
        statusValue: "acknowledged",
        assigneeId: "user_x",
        tags: [{ name: "travel", color: "#00ff00" }, { name: `it's "odd" ☕` }],
        customFields: { user: "j.doe", nested: { n: [1, 2] } },
        eventDate: "2026-01-31T23:59:59.123Z",
        occurrences: 7,
        caseId: "case_x",
        createdBy: "user_y",
      });
      const bare = alertRecord(f, org.id);
      await insertAll([full, bare]);
      expect(await find(org.id, full.id)).toStrictEqual(full);
      const found = await find(org.id, bare.id);
      expect(found).toStrictEqual(bare);
      expectNoUndefined(found);
    });

    it("findById is null for another organization, an unknown id and a soft-deleted alert (unless includeDeleted)", async () => {
      const f = ctx.fixtures();
      const record = alertRecord(f, org.id);
      await insertAll([record]);
      const { org: other } = await ctx.seedOrganization();
      expect(await find(other.id, record.id)).toBeNull();
      expect(await find(other.id, record.id, true)).toBeNull();
      expect(await find(org.id, f.ids.next("alert"))).toBeNull();
      const deleted = { ...record, deletedAt: f.at(), deletedBy: "user_x", updatedAt: f.at() };
      expect(await ctx.storage().transaction((tx) => tx.alerts.update(deleted))).toBe(true);
      expect(await find(org.id, record.id)).toBeNull();
      expect(await find(org.id, record.id, true)).toStrictEqual(deleted);
      expect(await ctx.storage().transaction((tx) => tx.alerts.update({ ...record, id: f.ids.next("alert") }))).toBe(false);
    });

    it("(organization, source, sourceRef) is unique among live alerts: a duplicate is a conflict, and the unit stays usable", async () => {
      const f = ctx.fixtures();
      const first = alertRecord(f, org.id, { sourceRef: "ref-1" });
      await insertAll([first]);
      await expectConflict(ctx.storage().transaction((tx) => tx.alerts.insert(alertRecord(f, org.id, { sourceRef: "ref-1" }))));

      const other = alertRecord(f, org.id, { sourceRef: "ref-2" });
      const winner = await ctx.storage().transaction(async (tx) => {
        const error = await tx.alerts.insert(alertRecord(f, org.id, { sourceRef: "ref-1" })).catch((e: unknown) => e);
        expect(isCaseKitError(error) && error.code).toBe("conflict");
        await tx.alerts.insert(other);
        return tx.alerts.findBySourceRef(org.id, "siem", "ref-1", 4);
      });
      expect(winner).toStrictEqual(first);
      expect(await find(org.id, other.id)).toStrictEqual(other);

      // Another source, another organization or no sourceRef at all never clash.
      const { org: second } = await ctx.seedOrganization();
      await insertAll([
        alertRecord(f, org.id, { source: "edr", sourceRef: "ref-1" }),
        alertRecord(f, second.id, { sourceRef: "ref-1" }),
        alertRecord(f, org.id),
        alertRecord(f, org.id),
      ]);
      await expectConflict(ctx.storage().transaction((tx) => tx.alerts.insert({ ...alertRecord(f, org.id), id: first.id })));
    });

    it("a reference has one live alert per TLP: findBySourceRef answers the highest at or below maxTlp, never one above", async () => {
      const f = ctx.fixtures();
      const green = alertRecord(f, org.id, { sourceRef: "ref-t", tlp: 1 });
      const red = alertRecord(f, org.id, { sourceRef: "ref-t", tlp: 4 });
      await insertAll([green, red]);
      const bySourceRef = (maxTlp: number) => ctx.storage().read((tx) => tx.alerts.findBySourceRef(org.id, "siem", "ref-t", maxTlp));
      expect(await bySourceRef(4)).toStrictEqual(red);
      expect(await bySourceRef(3)).toStrictEqual(green);
      expect(await bySourceRef(1)).toStrictEqual(green);
      expect(await bySourceRef(0)).toBeNull();
      await expectConflict(ctx.storage().transaction((tx) => tx.alerts.insert(alertRecord(f, org.id, { sourceRef: "ref-t", tlp: 4 }))));
      // Raising the GREEN one to RED would make a second live RED alert of the reference; the unit stays usable.
      const outcome = await ctx.storage().transaction(async (tx) => {
        const error = await tx.alerts.update({ ...green, tlp: 4 }).catch((e: unknown) => e);
        expect(isCaseKitError(error) && error.code).toBe("conflict");
        return tx.alerts.update({ ...green, tlp: 2 });
      });
      expect(outcome).toBe(true);
      expect((await bySourceRef(3))!.tlp).toBe(2);
    });

    it("a deleted alert frees its reference; restoring it while a newer one holds it is a conflict that leaves the unit usable", async () => {
      const f = ctx.fixtures();
      const old = alertRecord(f, org.id, { sourceRef: "ref-1" });
      await insertAll([old]);
      const deleted = { ...old, deletedAt: f.at(), deletedBy: "user_x" };
      await ctx.storage().transaction((tx) => tx.alerts.update(deleted));
      expect(await ctx.storage().read((tx) => tx.alerts.findBySourceRef(org.id, "siem", "ref-1", 4))).toBeNull();
      const fresh = alertRecord(f, org.id, { sourceRef: "ref-1" });
      await insertAll([fresh]);
      expect(await ctx.storage().read((tx) => tx.alerts.findBySourceRef(org.id, "siem", "ref-1", 4))).toStrictEqual(fresh);

      const outcome = await ctx.storage().transaction(async (tx) => {
        const error = await tx.alerts.update({ ...deleted, deletedAt: null, deletedBy: null }).catch((e: unknown) => e);
        expect(isCaseKitError(error) && error.code).toBe("conflict");
        return tx.alerts.update({ ...fresh, title: "Still writable" });
      });
      expect(outcome).toBe(true);
      expect(await find(org.id, old.id, true)).toStrictEqual(deleted);
      expect((await find(org.id, fresh.id))!.title).toBe("Still writable");
    });

    it("two units racing to ingest the same reference: one inserts, the others get a conflict and read the winner", async () => {
      const f = ctx.fixtures();
      const racers = [0, 1, 2, 3].map(() => alertRecord(f, org.id, { sourceRef: "race" }));
      const outcomes = await Promise.all(
        racers.map((record) =>
          ctx.storage().transaction(async (tx) => {
            const lost = await tx.alerts.insert(record).then(
              () => false,
              (e: unknown) => {
                if (isCaseKitError(e) && e.code === "conflict") return true;
                throw e;
              },
            );
            return { lost, live: (await tx.alerts.findBySourceRef(org.id, "siem", "race", 4))?.id };
          }),
        ),
      );
      const winners = outcomes.filter((o) => !o.lost);
      expect(winners).toHaveLength(1);
      expect(new Set(outcomes.map((o) => o.live))).toEqual(new Set([winners[0]!.live]));
    });

    it("lists newest first in keyset pages, filtered exactly as the port says, never a deleted alert unless asked", async () => {
      const f = ctx.fixtures();
      const { org: other } = await ctx.seedOrganization();
      const records: Alert[] = [];
      for (let i = 0; i < 60; i++) {
        records.push(
          alertRecord(f, org.id, {
            title: i % 3 === 0 ? `Beacon to C2_${i}` : `Login ${i}`,
            severity: (i % 4) + 1,
            tlp: i % 5,
            source: ["edr", "siem", "waf"][i % 3]!,
            typeValue: i % 2 === 0 ? "malware" : null,
            statusValue: (["new", "acknowledged", "closed"] as const)[i % 3]!,
            assigneeId: i % 4 === 0 ? "user_a" : null,
            tags: i % 6 === 0 ? [{ name: "c2" }] : i % 6 === 1 ? [{ name: "vpn" }, { name: "travel" }] : [],
            deletedAt: i % 7 === 0 ? f.at() : null,
            deletedBy: i % 7 === 0 ? "user_x" : null,
          }),
        );
      }
      await insertAll(shuffled(records));
      await insertAll([alertRecord(f, other.id, { source: "edr" })]);
      const createdAt = records.map((r) => r.createdAt).sort();
      const filters: AlertFilter[] = [
        { maxTlp: 4 },
        { maxTlp: 2 },
        { maxTlp: 4, includeDeleted: true },
        { maxTlp: 4, statusValue: ["closed"] },
        { maxTlp: 4, severity: [1, 4], source: ["edr", "waf"] },
        { maxTlp: 3, assigneeId: ["user_a"] },
        { maxTlp: 4, typeValue: ["malware"], tlp: [0, 1] },
        { maxTlp: 4, tag: ["c2", "travel"] },
        { maxTlp: 4, q: "c2_" },
        { maxTlp: 4, q: "%" },
        { maxTlp: 4, createdAfter: createdAt[10], createdBefore: createdAt[40] },
        { maxTlp: 4, severity: [] },
      ];
      for (const filter of filters) {
        const expected = idsOf(newestFirst(records.filter((r) => matches(r, filter))));
        const seen = await walkPages((page) => ctx.storage().read((tx) => tx.alerts.list(org.id, filter, page)), 7);
        expect(seen, JSON.stringify(filter)).toEqual(expected);
      }
    });

    it("findMany hands back the live alerts of the organization among the ids, and nothing else", async () => {
      const f = ctx.fixtures();
      const { org: other } = await ctx.seedOrganization();
      const live = [alertRecord(f, org.id), alertRecord(f, org.id, { tlp: 4 })];
      const deleted = alertRecord(f, org.id, { deletedAt: f.at(), deletedBy: "user_x" });
      const foreign = alertRecord(f, other.id);
      await insertAll([...live, deleted, foreign]);
      const found = await ctx.storage().read((tx) => tx.alerts.findMany(org.id, [...idsOf([...live, deleted, foreign]), f.ids.next("alert")]));
      expect(newestFirst(found)).toStrictEqual(newestFirst(live));
      expect(await ctx.storage().read((tx) => tx.alerts.findMany(org.id, []))).toEqual([]);
    });

    it("assignMany writes the assignee and time of the organization's live alerts only, and rolls back with its unit", async () => {
      const f = ctx.fixtures();
      const { org: other } = await ctx.seedOrganization();
      const live = [alertRecord(f, org.id), alertRecord(f, org.id, { assigneeId: "user_old" })];
      const deleted = alertRecord(f, org.id, { deletedAt: f.at(), deletedBy: "user_x" });
      const foreign = alertRecord(f, other.id);
      await insertAll([...live, deleted, foreign]);
      const at = "2026-03-01T10:00:00.000Z";
      const ids = idsOf([...live, deleted, foreign]);

      // A fault after the write: nothing of it stays.
      const failed = await ctx
        .storage()
        .transaction(async (tx) => {
          expect(await tx.alerts.assignMany(org.id, ids, "user_new", at)).toBe(2);
          throw new Error("fault after the write");
        })
        .catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(Error);
      expect((await find(org.id, live[0]!.id))!.assigneeId).toBeNull();
      expect((await find(org.id, live[1]!.id))!.assigneeId).toBe("user_old");

      expect(await ctx.storage().transaction((tx) => tx.alerts.assignMany(org.id, ids, "user_new", at))).toBe(2);
      for (const record of live) expect(await find(org.id, record.id)).toStrictEqual({ ...record, assigneeId: "user_new", updatedAt: at });
      expect(await find(org.id, deleted.id, true)).toStrictEqual(deleted);
      expect(await find(other.id, foreign.id)).toStrictEqual(foreign);
    });

    it("countBySource counts the organization's live alerts within maxTlp, with status and time bounds", async () => {
      const f = ctx.fixtures();
      const { org: other } = await ctx.seedOrganization();
      const jan = (day: number) => `2026-01-${String(day).padStart(2, "0")}T00:00:00.000Z`;
      await insertAll([
        alertRecord(f, org.id, { source: "edr", createdAt: jan(1) }),
        alertRecord(f, org.id, { source: "edr", createdAt: jan(5), statusValue: "closed" }),
        alertRecord(f, org.id, { source: "siem", createdAt: jan(10) }),
        alertRecord(f, org.id, { source: "siem", createdAt: jan(10), tlp: 4 }),
        alertRecord(f, org.id, { source: "siem", createdAt: jan(10), deletedAt: jan(11), deletedBy: "user_x" }),
        alertRecord(f, org.id, { source: "waf", createdAt: jan(12), deletedAt: jan(13), deletedBy: "user_x" }),
        alertRecord(f, other.id, { source: "edr", createdAt: jan(1) }),
      ]);
      const count = (filter: AlertSourceCountFilter) =>
        ctx.storage().read((tx) => tx.alerts.countBySource(org.id, filter));
      expect(await count({ maxTlp: 4 })).toEqual([
        { source: "edr", count: 2 },
        { source: "siem", count: 2 },
      ]);
      expect(await count({ maxTlp: 3 })).toEqual([
        { source: "edr", count: 2 },
        { source: "siem", count: 1 },
      ]);
      expect(await count({ maxTlp: 4, statusValue: ["closed"] })).toEqual([{ source: "edr", count: 1 }]);
      expect(await count({ maxTlp: 4, from: jan(5), to: jan(10) })).toEqual([{ source: "edr", count: 1 }]);
      expect(await count({ maxTlp: 4, from: jan(10) })).toEqual([{ source: "siem", count: 2 }]);
      expect(await count({ maxTlp: 4, statusValue: [] })).toEqual([]);
    });

    it("the observables of a soft-deleted alert leave the organization-wide list, by value and by alert", async () => {
      const f = ctx.fixtures();
      const alert = alertRecord(f, org.id);
      await insertAll([alert]);
      const at = f.at();
      const record: Observable = {
        id: f.ids.next("obs"),
        organizationId: org.id,
        caseId: null,
        alertId: alert.id,
        dataType: "ip",
        data: "192.0.2.99",
        tlp: 2,
        pap: 2,
        ioc: false,
        sighted: false,
        tags: [],
        message: null,
        customFields: {},
        createdAt: at,
        updatedAt: at,
        createdBy: null,
        deletedAt: null,
        deletedBy: null,
      };
      await ctx.storage().transaction((tx) => tx.observables.insert(record));
      const lists = () =>
        ctx.storage().read(async (tx) => [
          idsOf(await tx.observables.list(org.id, { maxTlp: 4, data: ["192.0.2.99"] }, { limit: 10 })),
          idsOf(await tx.observables.list(org.id, { maxTlp: 4, alertId: [alert.id] }, { limit: 10 })),
          (await tx.observables.findById(org.id, record.id))?.id ?? null,
        ]);
      expect(await lists()).toEqual([[record.id], [record.id], record.id]);
      await ctx.storage().transaction((tx) => tx.alerts.update({ ...alert, deletedAt: f.at(), deletedBy: "user_x" }));
      expect(await lists()).toEqual([[], [], null]);
    });
  });
}
