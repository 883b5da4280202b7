import { beforeEach, describe, expect, it } from "vitest";
import type { Case, Observable, ObservableFilter, Organization } from "../../core/index.js";
import { isCaseKitError } from "../../core/index.js";
import type { Fixtures } from "./fixtures.js";
import { shuffled } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined, idsOf, newestFirst, walkPages } from "./suite-context.js";

/** A complete observable of a case (or, with `alertId` set and `caseId: null`, of an alert). */
export function observableRecord(f: Fixtures, organizationId: string, overrides: Partial<Observable> & ({ caseId: string } | { alertId: string })): Observable {
  return {
    id: f.ids.next("obs"),
    organizationId,
    caseId: null,
    alertId: null,
    dataType: "ip",
    data: "192.0.2.1",
    tlp: 2,
    pap: 2,
    ioc: false,
    sighted: false,
    tags: [],
    message: null,
    customFields: {},
    createdAt: f.at(),
    updatedAt: f.at(),
    createdBy: null,
    deletedAt: null,
    deletedBy: null,
    ...overrides,
  };
}

/**
 * An alert row, written around the port (the observables suite must not depend on the alert
 * repository): the columns of migration 0002/0003's `alerts` table, portable SQL.
 */
async function insertAlert(ctx: SuiteContext, organizationId: string, options: { tlp?: number; deleted?: boolean } = {}): Promise<string> {
  const f = ctx.fixtures();
  const id = f.ids.next("alert");
  const at = f.at();
  await ctx
    .raw()
    .exec(
      "INSERT INTO alerts (id, organization_id, title, severity, tlp, pap, source, status_value, tags, custom_fields, occurrences, last_seen_at, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [id, organizationId, "Alert", 2, options.tlp ?? 2, 2, "siem", "new", "[]", "{}", 1, at, at, at, options.deleted ? at : null],
    );
  return id;
}

/** The list semantics the port promises, written out plainly (parents' TLP is checked separately). */
function matches(record: Observable, filter: ObservableFilter): boolean {
  const anyOf = <T>(values: readonly T[] | undefined, value: T) => values === undefined || values.includes(value);
  const time = (iso: string) => Date.parse(iso);
  return (
    record.deletedAt === null &&
    record.tlp <= filter.maxTlp &&
    anyOf(filter.dataType, record.dataType) &&
    anyOf(filter.data, record.data) &&
    anyOf(filter.tlp, record.tlp) &&
    (filter.caseId === undefined || (record.caseId !== null && filter.caseId.includes(record.caseId))) &&
    (filter.alertId === undefined || (record.alertId !== null && filter.alertId.includes(record.alertId))) &&
    (filter.ioc === undefined || record.ioc === filter.ioc) &&
    (filter.sighted === undefined || record.sighted === filter.sighted) &&
    (filter.tag === undefined || record.tags.some((t) => filter.tag!.includes(t.name))) &&
    (filter.createdAfter === undefined || time(record.createdAt) > time(filter.createdAfter)) &&
    (filter.createdBefore === undefined || time(record.createdAt) < time(filter.createdBefore))
  );
}

/** Observables: round trips, per-parent uniqueness among live rows, soft delete, lists. */
export function describeObservables(ctx: SuiteContext): void {
  describe("observables", () => {
    let org: Organization;
    let parentCase: Case;

    beforeEach(async () => {
      ({ org } = await ctx.seedOrganization());
      parentCase = ctx.fixtures().caseRecord(org.id);
      await ctx.storage().transaction((tx) => tx.cases.insert(parentCase));
    });

    const find = (organizationId: string, id: string) => ctx.storage().read((tx) => tx.observables.findById(organizationId, id));

    it("insert then findById returns the record intact, with null for absent values", async () => {
      const f = ctx.fixtures();
      const full = observableRecord(f, org.id, { caseId: parentCase.id, ioc: true, sighted: true, tags: [{ name: "c2", color: "#ff0000" }, { name: `it's "odd" ☕` }], message: "seen in proxy logs", pap: 3, tlp: 4 });
      const bare = observableRecord(f, org.id, { caseId: parentCase.id, dataType: "hash", data: "d41d8cd98f00b204e9800998ecf8427e" });
      await ctx.storage().transaction(async (tx) => {
        await tx.observables.insert(full);
        await tx.observables.insert(bare);
      });
      expect(await find(org.id, full.id)).toStrictEqual(full);
      const found = await find(org.id, bare.id);
      expect(found).toStrictEqual(bare);
      expectNoUndefined(found);
      expect(found?.ioc).toBe(false);
    });

    it("findById is null for another organization, an unknown id and a soft-deleted record", async () => {
      const f = ctx.fixtures();
      const record = observableRecord(f, org.id, { caseId: parentCase.id });
      await ctx.storage().transaction((tx) => tx.observables.insert(record));
      const { org: other } = await ctx.seedOrganization();
      expect(await find(other.id, record.id)).toBeNull();
      expect(await find(org.id, f.ids.next("obs"))).toBeNull();
      expect(await ctx.storage().transaction((tx) => tx.observables.update({ ...record, deletedAt: f.at(), deletedBy: "user_x", updatedAt: f.at() }))).toBe(true);
      expect(await find(org.id, record.id)).toBeNull();
    });

    it("one live observable per parent and (dataType, data): a duplicate is a conflict, and the unit stays usable", async () => {
      const f = ctx.fixtures();
      const first = observableRecord(f, org.id, { caseId: parentCase.id });
      await ctx.storage().transaction((tx) => tx.observables.insert(first));
      const clash = observableRecord(f, org.id, { caseId: parentCase.id, ioc: true });
      await expectConflict(ctx.storage().transaction((tx) => tx.observables.insert(clash)));
      expect(await find(org.id, clash.id)).toBeNull();

      // Caught inside a unit, the conflict leaves it able to read the winner and write on.
      const other = observableRecord(f, org.id, { caseId: parentCase.id, data: "192.0.2.2" });
      const winner = await ctx.storage().transaction(async (tx) => {
        const error = await tx.observables.insert(observableRecord(f, org.id, { caseId: parentCase.id })).catch((e: unknown) => e);
        expect(isCaseKitError(error) && error.code).toBe("conflict");
        await tx.observables.insert(other);
        return tx.observables.findByValue(org.id, { kind: "case", id: parentCase.id }, "ip", "192.0.2.1", 4);
      });
      expect(winner).toStrictEqual(first);
      expect(await find(org.id, other.id)).toStrictEqual(other);
    });

    it("two units racing to add the same value: one inserts, the other gets a conflict and then reads the winner", async () => {
      const f = ctx.fixtures();
      const racers = [0, 1, 2, 3].map(() => observableRecord(f, org.id, { caseId: parentCase.id, data: "203.0.113.50" }));
      const outcomes = await Promise.all(
        racers.map((record) =>
          ctx.storage().transaction(async (tx) => {
            const lost = await tx.observables.insert(record).then(
              () => false,
              (e: unknown) => {
                if (isCaseKitError(e) && e.code === "conflict") return true;
                throw e;
              },
            );
            const live = await tx.observables.findByValue(org.id, { kind: "case", id: parentCase.id }, "ip", "203.0.113.50", 4);
            return { lost, id: record.id, live: live?.id };
          }),
        ),
      );
      const winners = outcomes.filter((o) => !o.lost);
      expect(winners).toHaveLength(1);
      expect(outcomes.every((o) => o.live === winners[0]!.id)).toBe(true);
      expect(await ctx.storage().read((tx) => tx.observables.list(org.id, { maxTlp: 4, data: ["203.0.113.50"] }, { limit: 10 }))).toHaveLength(1);
    });

    it("the same value under another dataType, another case or an alert is no duplicate", async () => {
      const f = ctx.fixtures();
      const secondCase = f.caseRecord(org.id);
      await ctx.storage().transaction((tx) => tx.cases.insert(secondCase));
      const alertId = await insertAlert(ctx, org.id);
      const records = [
        observableRecord(f, org.id, { caseId: parentCase.id, data: "evil.test", dataType: "domain" }),
        observableRecord(f, org.id, { caseId: parentCase.id, data: "evil.test", dataType: "fqdn" }),
        observableRecord(f, org.id, { caseId: secondCase.id, data: "evil.test", dataType: "domain" }),
        observableRecord(f, org.id, { alertId, data: "evil.test", dataType: "domain" }),
      ];
      await ctx.storage().transaction(async (tx) => {
        for (const r of records) await tx.observables.insert(r);
      });
      for (const r of records) expect(await find(org.id, r.id)).toStrictEqual(r);
      await expectConflict(ctx.storage().transaction((tx) => tx.observables.insert(observableRecord(f, org.id, { alertId, data: "evil.test", dataType: "domain" }))));
    });

    it("a soft-deleted observable frees its value: the parent may get it again", async () => {
      const f = ctx.fixtures();
      const first = observableRecord(f, org.id, { caseId: parentCase.id });
      await ctx.storage().transaction((tx) => tx.observables.insert(first));
      await ctx.storage().transaction((tx) => tx.observables.update({ ...first, deletedAt: f.at(), deletedBy: "user_x" }));
      const again = observableRecord(f, org.id, { caseId: parentCase.id });
      await ctx.storage().transaction((tx) => tx.observables.insert(again));
      expect(await ctx.storage().read((tx) => tx.observables.findByValue(org.id, { kind: "case", id: parentCase.id }, "ip", "192.0.2.1", 4))).toStrictEqual(again);
    });

    it("one live record per value and TLP: findByValue answers the highest TLP at or below maxTlp, never one above", async () => {
      const f = ctx.fixtures();
      const green = observableRecord(f, org.id, { caseId: parentCase.id, tlp: 1 });
      const red = observableRecord(f, org.id, { caseId: parentCase.id, tlp: 4 });
      const onAlert = observableRecord(f, org.id, { alertId: await insertAlert(ctx, org.id), tlp: 4 });
      await ctx.storage().transaction(async (tx) => {
        for (const r of [green, red, onAlert]) await tx.observables.insert(r);
      });
      const byValue = (parent: { kind: "case" | "alert"; id: string }, maxTlp: number) =>
        ctx.storage().read((tx) => tx.observables.findByValue(org.id, parent, "ip", "192.0.2.1", maxTlp));
      expect(await byValue({ kind: "case", id: parentCase.id }, 4)).toStrictEqual(red);
      expect(await byValue({ kind: "case", id: parentCase.id }, 3)).toStrictEqual(green);
      expect(await byValue({ kind: "case", id: parentCase.id }, 1)).toStrictEqual(green);
      expect(await byValue({ kind: "case", id: parentCase.id }, 0)).toBeNull();
      expect(await byValue({ kind: "alert", id: onAlert.alertId! }, 3)).toBeNull();
      expect(await byValue({ kind: "alert", id: onAlert.alertId! }, 4)).toStrictEqual(onAlert);
      // The same TLP still clashes, for a case and for an alert.
      await expectConflict(ctx.storage().transaction((tx) => tx.observables.insert(observableRecord(f, org.id, { caseId: parentCase.id, tlp: 1 }))));
      await expectConflict(ctx.storage().transaction((tx) => tx.observables.insert(observableRecord(f, org.id, { alertId: onAlert.alertId!, tlp: 4 }))));
    });

    it("a taken id is a conflict", async () => {
      const f = ctx.fixtures();
      const first = observableRecord(f, org.id, { caseId: parentCase.id });
      await ctx.storage().transaction((tx) => tx.observables.insert(first));
      await expectConflict(ctx.storage().transaction((tx) => tx.observables.insert({ ...observableRecord(f, org.id, { caseId: parentCase.id, data: "198.51.100.7" }), id: first.id })));
    });

    it("findByValue matches the exact stored text, the parent and the organization, live rows only", async () => {
      const f = ctx.fixtures();
      const record = observableRecord(f, org.id, { caseId: parentCase.id, dataType: "domain", data: "evil.test" });
      await ctx.storage().transaction((tx) => tx.observables.insert(record));
      const byValue = (organizationId: string, caseId: string, dataType: string, data: string) =>
        ctx.storage().read((tx) => tx.observables.findByValue(organizationId, { kind: "case", id: caseId }, dataType, data, 4));
      expect(await byValue(org.id, parentCase.id, "domain", "evil.test")).toStrictEqual(record);
      expect(await byValue(org.id, parentCase.id, "domain", "EVIL.test")).toBeNull();
      expect(await byValue(org.id, parentCase.id, "fqdn", "evil.test")).toBeNull();
      const { org: other } = await ctx.seedOrganization();
      expect(await byValue(other.id, parentCase.id, "domain", "evil.test")).toBeNull();
      expect(await ctx.storage().read((tx) => tx.observables.findByValue(org.id, { kind: "alert", id: parentCase.id }, "domain", "evil.test", 4))).toBeNull();
    });

    it("update writes the mutable fields only, and is false for another organization, an unknown or a deleted record", async () => {
      const f = ctx.fixtures();
      const before = observableRecord(f, org.id, { caseId: parentCase.id, message: "first" });
      await ctx.storage().transaction((tx) => tx.observables.insert(before));
      f.clock.advance(60_000);
      const after: Observable = { ...before, tlp: 3, pap: 0, ioc: true, sighted: true, tags: [{ name: "c2" }], message: null, updatedAt: f.at() };
      expect(await ctx.storage().transaction((tx) => tx.observables.update(after))).toBe(true);
      expect(await find(org.id, before.id)).toStrictEqual(after);
      // Parent, value and creation are fixed at insert.
      const moved = { ...after, data: "203.0.113.9", dataType: "other", createdBy: "user_y", createdAt: f.at() };
      expect(await ctx.storage().transaction((tx) => tx.observables.update(moved))).toBe(true);
      expect(await find(org.id, before.id)).toStrictEqual(after);

      const { org: other } = await ctx.seedOrganization();
      expect(await ctx.storage().transaction((tx) => tx.observables.update({ ...after, organizationId: other.id, message: "hijack" }))).toBe(false);
      expect(await ctx.storage().transaction((tx) => tx.observables.update(observableRecord(f, org.id, { caseId: parentCase.id })))).toBe(false);
      const deleted = { ...after, deletedAt: f.at(), deletedBy: "user_x" };
      expect(await ctx.storage().transaction((tx) => tx.observables.update(deleted))).toBe(true);
      expect(await ctx.storage().transaction((tx) => tx.observables.update({ ...deleted, message: "after death" }))).toBe(false);
    });

    it("a soft-deleted alert hides its observables from findById but not from listByAlert", async () => {
      const f = ctx.fixtures();
      const alertId = await insertAlert(ctx, org.id);
      const record = observableRecord(f, org.id, { alertId });
      await ctx.storage().transaction((tx) => tx.observables.insert(record));
      expect(await find(org.id, record.id)).toStrictEqual(record);
      await ctx.raw().exec("UPDATE alerts SET deleted_at = ? WHERE id = ?", [f.at(), alertId]);
      expect(await find(org.id, record.id)).toBeNull();
      expect(await ctx.storage().read((tx) => tx.observables.listByAlert(org.id, alertId))).toStrictEqual([record]);
    });

    it("listByAlert: the alert's live observables, oldest first, of that organization only", async () => {
      const f = ctx.fixtures();
      const alertId = await insertAlert(ctx, org.id);
      const otherAlert = await insertAlert(ctx, org.id);
      const records = ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map((data) => observableRecord(f, org.id, { alertId, data }));
      const gone = observableRecord(f, org.id, { alertId, data: "192.0.2.4", deletedAt: f.at(), deletedBy: "user_x" });
      await ctx.storage().transaction(async (tx) => {
        for (const r of shuffled([...records, gone, observableRecord(f, org.id, { alertId: otherAlert }), observableRecord(f, org.id, { caseId: parentCase.id })])) await tx.observables.insert(r);
      });
      expect(await ctx.storage().read((tx) => tx.observables.listByAlert(org.id, alertId))).toStrictEqual(records);
      const { org: other } = await ctx.seedOrganization();
      expect(await ctx.storage().read((tx) => tx.observables.listByAlert(other.id, alertId))).toEqual([]);
    });

    describe("observables.list", () => {
      let mine: Observable[];
      let secondCase: Case;
      let alertId: string;
      const hour = 3_600_000;
      // The first two share a value under two parents ("where else have we seen it").
      const values = ["192.0.2.1", "192.0.2.1", "evil.test", "d41d8cd98f00b204e9800998ecf8427e"];
      const types = ["ip", "ip", "domain", "hash"];
      const tagSets = [[], [{ name: "c2" }], [{ name: "apt", color: "#ff0000" }, { name: "c2" }], [{ name: "phish" }]];

      beforeEach(async () => {
        const f = ctx.fixtures();
        secondCase = f.caseRecord(org.id, { tlp: 0 });
        await ctx.storage().transaction((tx) => tx.cases.insert(secondCase));
        alertId = await insertAlert(ctx, org.id, { tlp: 1 });
        const { org: other } = await ctx.seedOrganization();
        const otherCase = f.caseRecord(other.id);
        await ctx.storage().transaction((tx) => tx.cases.insert(otherCase));
        mine = [];
        const theirs: Observable[] = [];
        const parents = [{ caseId: parentCase.id }, { caseId: secondCase.id }, { alertId }];
        for (let i = 0; i < 30; i++) {
          f.clock.advance(hour);
          mine.push(
            observableRecord(f, org.id, {
              ...parents[i % 3]!,
              dataType: types[i % 4]!,
              // Unique per parent and type: after the first lap each value gets its own suffix.
              data: i < 4 ? values[i]! : `${values[i % 4]!}.${i}`,
              tlp: i % 3 === 0 ? parentCase.tlp : i % 3 === 1 ? i % 2 : 1,
              ioc: i % 2 === 0,
              sighted: i % 5 === 0,
              tags: tagSets[i % 4]!,
              deletedAt: i % 7 === 6 ? f.at() : null,
              deletedBy: i % 7 === 6 ? "user_x" : null,
            }),
          );
        }
        // Another organization holds the same values, interleaved in time and id with ours.
        for (let i = 0; i < 8; i++) theirs.push(observableRecord(f, other.id, { caseId: otherCase.id, dataType: i % 2 === 0 ? "ip" : "other", data: `${values[i % 4]}${i >= 4 ? "x" : ""}` }));
        await ctx.storage().transaction(async (tx) => {
          for (const r of shuffled([...mine, ...theirs])) await tx.observables.insert(r);
        });
      });

      const list = (filter: ObservableFilter, limit = 1000, beforeId?: string) =>
        ctx.storage().read((tx) => tx.observables.list(org.id, filter, beforeId === undefined ? { limit } : { limit, beforeId }));

      async function expectList(filter: ObservableFilter): Promise<Observable[]> {
        const expected = newestFirst(mine.filter((r) => matches(r, filter)));
        const found = await list(filter);
        expect(idsOf(found)).toEqual(idsOf(expected));
        expect(found).toStrictEqual(expected);
        return found;
      }

      it("with no filter: every live observable of the organization, newest first, never a deleted one", async () => {
        const found = await expectList({ maxTlp: 4 });
        expect(found.length).toBe(mine.filter((r) => r.deletedAt === null).length);
        expect(found.every((r) => r.deletedAt === null)).toBe(true);
      });

      const filters: [string, () => Omit<ObservableFilter, "maxTlp">][] = [
        ["data, one value (across parents)", () => ({ data: ["192.0.2.1"] })],
        ["data, any of several", () => ({ data: ["192.0.2.1", "evil.test"] })],
        ["data, a value only another organization has", () => ({ data: ["192.0.2.1x"] })],
        ["dataType", () => ({ dataType: ["hash"] })],
        ["dataType, any of several", () => ({ dataType: ["hash", "domain"] })],
        ["ioc true", () => ({ ioc: true })],
        ["ioc false", () => ({ ioc: false })],
        ["sighted true", () => ({ sighted: true })],
        ["tag", () => ({ tag: ["apt"] })],
        ["tag, any of several", () => ({ tag: ["apt", "phish"] })],
        ["caseId", () => ({ caseId: [parentCase.id] })],
        ["caseId, any of several", () => ({ caseId: [parentCase.id, secondCase.id] })],
        ["alertId", () => ({ alertId: [alertId] })],
        ["tlp", () => ({ tlp: [1] })],
        ["several members at once", () => ({ data: ["192.0.2.1"], dataType: ["ip"], ioc: true })],
      ];
      it.each(filters)("filter: %s", async (name, build) => {
        const found = await expectList({ maxTlp: 4, ...build() });
        if (name.includes("only another organization")) expect(found).toEqual([]);
        else expect(found.length).toBeGreaterThan(0);
      });

      it("an empty any-of list matches nothing", async () => {
        expect(await list({ maxTlp: 4, data: [] })).toEqual([]);
        expect(await list({ maxTlp: 4, caseId: [] })).toEqual([]);
      });

      it("createdAfter and createdBefore are exclusive bounds", async () => {
        const ordered = [...mine].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
        const after = await expectList({ maxTlp: 4, createdAfter: ordered[5]!.createdAt });
        expect(idsOf(after)).not.toContain(ordered[5]!.id);
        const before = await expectList({ maxTlp: 4, createdBefore: ordered[20]!.createdAt });
        expect(idsOf(before)).not.toContain(ordered[20]!.id);
      });

      it("maxTlp leaves out observables above it and those whose parent is above it", async () => {
        // parentCase is TLP 2: at maxTlp 1 even its TLP 0/1 observables are left out.
        const lowered = mine.find((r) => r.caseId === parentCase.id && r.deletedAt === null)!;
        await ctx.storage().transaction((tx) => tx.observables.update({ ...lowered, tlp: 0 }));
        const found = await list({ maxTlp: 1 });
        expect(found.length).toBeGreaterThan(0);
        expect(found.every((r) => r.tlp <= 1 && r.caseId !== parentCase.id)).toBe(true);
        expect(idsOf(found)).toEqual(idsOf(newestFirst(mine.filter((r) => r.deletedAt === null && r.tlp <= 1 && r.caseId !== parentCase.id))));
        expect(await list({ maxTlp: 0 })).toStrictEqual(newestFirst(mine.filter((r) => r.deletedAt === null && r.tlp === 0 && r.caseId === secondCase.id)));
      });

      it("a soft-deleted parent alert hides its observables from every list", async () => {
        const before = await list({ maxTlp: 4, alertId: [alertId] });
        expect(before.length).toBeGreaterThan(0);
        await ctx.raw().exec("UPDATE alerts SET deleted_at = ? WHERE id = ?", [ctx.fixtures().at(), alertId]);
        expect(await list({ maxTlp: 4, alertId: [alertId] })).toEqual([]);
        const all = await list({ maxTlp: 4 });
        expect(all.some((r) => r.alertId === alertId)).toBe(false);
        expect(await list({ maxTlp: 4, data: before.map((r) => r.data) }).then((rows) => rows.filter((r) => r.alertId !== null))).toEqual([]);
      });

      it("keyset pages walk every match exactly once, newest first", async () => {
        const expected = idsOf(newestFirst(mine.filter((r) => r.deletedAt === null)));
        for (const size of [1, 4, 7]) {
          expect(await walkPages((page) => ctx.storage().read((tx) => tx.observables.list(org.id, { maxTlp: 4 }, page)), size)).toEqual(expected);
        }
        const ip = idsOf(newestFirst(mine.filter((r) => matches(r, { maxTlp: 4, dataType: ["ip"] }))));
        expect(await walkPages((page) => ctx.storage().read((tx) => tx.observables.list(org.id, { maxTlp: 4, dataType: ["ip"] }, page)), 2)).toEqual(ip);
      });

      it("limit 0 returns nothing", async () => {
        expect(await list({ maxTlp: 4 }, 0)).toEqual([]);
      });
    });
  });
}
