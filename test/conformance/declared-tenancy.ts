/**
 * Tenant scoping, derived: with records of two tenants stored, no read as one tenant returns the
 * other's records and no write as one tenant touches them. A resource no tenant owns is read and
 * written by its key alone.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import type { Row } from "./declared-records.js";
import { byId, changed, contentArbitrary, datasetArbitrary, isDeleted, patchableField, tenants, visibleTo } from "./declared-records.js";
import { evaluable, matches, valueMatching } from "./declared-filters.js";
import type { Checks } from "./declared-suite.js";

const everything = { limit: 1000, order: "asc" } as const;

/** A dataset and, per record, the content of a change to it. */
const datasetWithChanges = (checks: Checks) =>
  fc.tuple(datasetArbitrary(checks.resource), fc.array(contentArbitrary(checks.resource), { minLength: 14, maxLength: 14 }));

export function describeTenancy(checks: Checks): void {
  const { resource } = checks;
  const idOf = (record: Row) => record[resource.id.key] as string;
  const runs = Math.max(3, Math.ceil(checks.runs / 2));
  // A resource whose every column is fixed (an append-only log) has no update to check.
  const updatable = resource.mutable.length > 0;

  if (resource.tenant === undefined) {
    it("no tenant owns it: reads and writes find a record by its key alone", async () => {
      await fc.assert(
        fc.asyncProperty(datasetWithChanges(checks), ([records, contents]) =>
          checks.inRun(async () => {
            const repo = checks.repo();
            await checks.store(records);
            const live = visibleTo(resource, null, records);
            for (const record of records) expect(await repo.findById(null, idOf(record))).toStrictEqual(isDeleted(resource, record) ? null : record);
            expect(await repo.findMany(null, records.map(idOf))).toStrictEqual(byId(resource, live));
            expect(await repo.list(null, {}, everything)).toStrictEqual(byId(resource, live));
            for (const [i, record] of records.entries()) {
              if (updatable) {
                const next = changed(resource, record, contents[i]!);
                expect(await repo.update(next)).toBe(!isDeleted(resource, record));
                if (!isDeleted(resource, record)) expect(await repo.findById(null, idOf(record))).toStrictEqual(next);
              }
              expect(await repo.delete(null, idOf(record))).toBe(true);
            }
            expect(await checks.rows()).toEqual([]);
          }),
        ),
        { numRuns: runs },
      );
    });
    return;
  }

  const tenantKey = resource.tenant.key;
  const [mine, theirs] = tenants;
  const of = (tenant: string, records: readonly Row[]) => records.filter((r) => r[tenantKey] === tenant);

  it("reads as one tenant (by id, by ids, lists with each filter) never return another tenant's records", async () => {
    await fc.assert(
      fc.asyncProperty(datasetArbitrary(resource), (records) =>
        checks.inRun(async () => {
          const repo = checks.repo();
          await checks.store(records);
          const visible = byId(resource, visibleTo(resource, mine, records));
          for (const record of records) {
            const expected = record[tenantKey] === mine && !isDeleted(resource, record) ? record : null;
            expect(await repo.findById(mine, idOf(record))).toStrictEqual(expected);
          }
          expect(await repo.findMany(mine, records.map(idOf))).toStrictEqual(visible);
          expect(await repo.list(mine, {}, everything)).toStrictEqual(visible);
          // Each filter with a value the other tenant's records match.
          for (const [name, spec] of Object.entries(resource.filters)) {
            for (const other of of(theirs, records).slice(0, 3)) {
              const value = valueMatching(resource, spec, other);
              if (value === undefined) continue;
              const found = await repo.list(mine, { [name]: value }, everything);
              if (evaluable(spec)) expect(found, name).toStrictEqual(visible.filter((r) => matches(spec, r, value)));
              else for (const record of found) expect(visible, name).toContainEqual(record);
            }
          }
        }),
      ),
      { numRuns: runs },
    );
  });

  it("writes as one tenant (update, updateMany, upsert, patchMany, delete, deleteWhere) never touch another tenant's records", async () => {
    const patchable = patchableField(resource);
    await fc.assert(
      fc.asyncProperty(datasetWithChanges(checks), ([records, contents]) =>
        checks.inRun(async () => {
          const repo = checks.repo();
          await checks.store(records);
          const others = of(theirs, records);
          // Their records, claimed for my tenant and changed.
          const claimed = others.map((record, i) => ({ ...changed(resource, record, contents[i]!), [tenantKey]: mine }));
          if (updatable) {
            for (const record of claimed) expect(await repo.update(record)).toBe(false);
            expect(await repo.updateMany(claimed)).toBe(0);
          }
          for (const record of claimed) await repo.upsert(record);
          if (patchable) expect(await repo.patchMany(mine, others.map(idOf), { [patchable.key]: contents[0]![patchable.key] })).toBe(0);
          for (const record of others) expect(await repo.delete(mine, idOf(record))).toBe(false);
          for (const [name, spec] of Object.entries(resource.filters)) {
            const value = others.length === 0 ? undefined : valueMatching(resource, spec, others[0]!);
            if (value !== undefined) await repo.deleteWhere(mine, { [name]: value });
          }
          expect(await repo.deleteWhere(mine, {})).toBeGreaterThanOrEqual(0);
          expect(await checks.rows(), "the other tenant's rows, untouched; none of mine left").toStrictEqual(byId(resource, others));
        }),
      ),
      { numRuns: runs },
    );
  });

  it("writes as one tenant reach its own records", async () => {
    const patchable = patchableField(resource);
    await fc.assert(
      fc.asyncProperty(datasetWithChanges(checks), ([records, contents]) =>
        checks.inRun(async () => {
          const repo = checks.repo();
          await checks.store(records);
          const own = of(mine, records);
          const live = own.filter((r) => !isDeleted(resource, r));
          const next = updatable ? own.map((record, i) => changed(resource, record, contents[i]!)) : own;
          if (updatable) {
            for (const [i, record] of next.entries()) expect(await repo.update(record)).toBe(!isDeleted(resource, own[i]!));
            expect(await repo.updateMany(next)).toBe(live.length);
          }
          let expected = next.map((record, i) => (isDeleted(resource, own[i]!) ? own[i]! : record));
          if (patchable) {
            const value = contents[1]![patchable.key];
            expect(await repo.patchMany(mine, own.map(idOf), { [patchable.key]: value })).toBe(live.length);
            expected = expected.map((record) => (isDeleted(resource, record) ? record : { ...record, [patchable.key]: value }));
          }
          const rows = await checks.rows();
          expect(of(mine, rows)).toStrictEqual(byId(resource, expected));
          expect(await repo.deleteWhere(mine, {})).toBe(own.length);
          expect(await checks.rows()).toStrictEqual(byId(resource, of(theirs, records)));
        }),
      ),
      { numRuns: runs },
    );
  });
}
