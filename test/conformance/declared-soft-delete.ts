/**
 * Soft-delete invisibility, derived for a resource that declares `softDelete`: a record deleted so
 * (stored deleted, or deleted by an update) is returned by no read, whichever filter would select
 * it, and no update, updateMany or patchMany writes it; a delete still removes it.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { valueMatching } from "./declared-filters.js";
import type { Row } from "./declared-records.js";
import { changed, contentArbitrary, datasetArbitrary, isDeleted, patchableField, tenants } from "./declared-records.js";
import type { Checks } from "./declared-suite.js";

const everything = { limit: 1000, order: "asc" } as const;
const deletedAt = fc.integer({ min: Date.parse("2026-01-01T00:00:00.000Z"), max: Date.parse("2027-01-01T00:00:00.000Z") }).map((ms) => new Date(ms).toISOString());

export function describeSoftDelete(checks: Checks): void {
  const { resource } = checks;
  const softDelete = resource.softDelete!;
  const idOf = (record: Row) => record[resource.id.key] as string;
  const tenantOf = (record: Row) => (resource.tenant === undefined ? null : (record[resource.tenant.key] as string));

  it(`a record whose ${softDelete.key} is set is returned by no read and written by no update`, async () => {
    const patchable = patchableField(resource);
    await fc.assert(
      fc.asyncProperty(datasetArbitrary(resource), deletedAt, contentArbitrary(resource), (records, at, content) =>
        checks.inRun(async () => {
          const repo = checks.repo();
          await checks.store(records);
          // Those stored live are deleted by an update, as the core deletes them.
          for (const record of records.filter((r) => !isDeleted(resource, r))) {
            const deleted = { ...record, [softDelete.key]: at };
            expect(await repo.update(deleted)).toBe(true);
            Object.assign(record, deleted);
          }
          const stored = await checks.rows();
          expect(stored).toStrictEqual(records);
          const owners = resource.tenant === undefined ? [null] : [...tenants];
          for (const tenant of owners) {
            expect(await repo.findMany(tenant, records.map(idOf))).toEqual([]);
            expect(await repo.list(tenant, {}, everything)).toEqual([]);
            expect(await repo.list(tenant, {}, { limit: 1000, order: "desc" })).toEqual([]);
          }
          for (const [i, record] of records.entries()) {
            expect(await repo.findById(tenantOf(record), idOf(record))).toBeNull();
            if (i >= 3) continue; // a few records through every filter is enough, and keeps the check fast
            for (const [name, spec] of Object.entries(resource.filters)) {
              const value = valueMatching(resource, spec, record);
              if (value !== undefined) expect(await repo.list(tenantOf(record), { [name]: value }, everything), name).toEqual([]);
            }
          }
          // Undeleting or changing it by update is refused alike.
          const revived = records.map((record) => ({ ...changed(resource, record, content), [softDelete.key]: null }));
          for (const record of revived) expect(await repo.update(record)).toBe(false);
          expect(await repo.updateMany(revived)).toBe(0);
          if (patchable) {
            for (const tenant of new Set(records.map(tenantOf))) {
              const ids = records.filter((r) => tenantOf(r) === tenant).map(idOf);
              expect(await repo.patchMany(tenant, ids, { [patchable.key]: content[patchable.key] })).toBe(0);
            }
          }
          expect(await checks.rows(), "deleted rows are left as they were").toStrictEqual(stored);
          for (const record of records) expect(await repo.delete(tenantOf(record), idOf(record))).toBe(true);
          expect(await checks.rows()).toEqual([]);
        }),
      ),
      { numRuns: Math.max(3, Math.ceil(checks.runs / 2)) },
    );
  });
}
