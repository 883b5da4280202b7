/**
 * Each declared filter, derived: over generated records, a list filtered by it (on any keyset
 * page, in either order) returns exactly the live records of the tenant that the in-memory model
 * (declared-filters.ts) says match; all of them together return the records matching every one.
 * A `condition` filter is SQL of its own: it is held to the tenant's live records here, and its
 * rule is checked by its resource's own suite.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import type { FilterSpec } from "../../adapters/declare/resource.js";
import type { Evaluable } from "./declared-filters.js";
import { evaluable, filterValueArbitrary, matches } from "./declared-filters.js";
import type { Row } from "./declared-records.js";
import { byId, datasetArbitrary, tenants, visibleTo } from "./declared-records.js";
import type { Checks } from "./declared-suite.js";

interface Page {
  limit: number;
  order: "asc" | "desc";
  /** Which record's id the page starts after, if any (an index into the dataset). */
  after: number | undefined;
}

const pageArbitrary: fc.Arbitrary<Page> = fc.record({
  limit: fc.integer({ min: 1, max: 20 }),
  order: fc.constantFrom("asc" as const, "desc" as const),
  after: fc.option(fc.nat(), { nil: undefined }),
});

export function describeFilters(checks: Checks): void {
  const { resource } = checks;
  const idOf = (record: Row) => record[resource.id.key] as string;
  const tenant = resource.tenant === undefined ? null : tenants[0];
  const filters = Object.entries(resource.filters);

  /** The page of `records` (all stored) a list as the tenant returns under `matching`. */
  const expectedPage = (records: readonly Row[], matching: (record: Row) => boolean, page: Page): { after: string | undefined; rows: Row[] } => {
    const after = page.after === undefined || records.length === 0 ? undefined : idOf(records[page.after % records.length]!);
    const ordered = byId(resource, visibleTo(resource, tenant, records).filter(matching));
    const walk = page.order === "asc" ? ordered : ordered.reverse();
    const past = walk.filter((r) => after === undefined || (page.order === "asc" ? idOf(r) > after : idOf(r) < after));
    return { after, rows: past.slice(0, page.limit) };
  };

  /** A dataset, then filter values drawn from it, then a page. */
  const withValues = (specs: readonly [string, FilterSpec<string>][]) =>
    datasetArbitrary(resource).chain((records) =>
      fc.tuple(fc.constant(records), fc.tuple(...specs.map(([, spec]) => filterValueArbitrary(resource, spec, records))), pageArbitrary),
    );

  for (const [name, spec] of filters) {
    if (!evaluable(spec)) {
      it(`condition filter ${name} returns only the tenant's live records (its rule: the resource's own suite)`, async () => {
        await fc.assert(
          fc.asyncProperty(withValues([[name, spec]]), ([records, [value], page]) =>
            checks.inRun(async () => {
              await checks.store(records);
              const { after } = expectedPage(records, () => true, page);
              const found = await checks.repo().list(tenant, { [name]: value }, { ...page, after });
              const visible = visibleTo(resource, tenant, records);
              for (const record of found) expect(visible).toContainEqual(record);
            }),
          ),
          { numRuns: Math.max(3, Math.ceil(checks.runs / 2)) },
        );
      });
      continue;
    }
    it(`filter ${name} (${spec.kind} on ${spec.column}) returns exactly the matching live records, page by page`, async () => {
      await fc.assert(
        fc.asyncProperty(withValues([[name, spec]]), ([records, [value], page]) =>
          checks.inRun(async () => {
            await checks.store(records);
            const { after, rows } = expectedPage(records, (r) => matches(spec, r, value), page);
            expect(await checks.repo().list(tenant, { [name]: value }, { ...page, after })).toStrictEqual(rows);
          }),
        ),
        { numRuns: checks.runs },
      );
    });
  }

  const model = filters.filter((entry): entry is [string, Evaluable] => evaluable(entry[1]));
  if (model.length > 1) {
    it("filters given together return the records matching every one", async () => {
      await fc.assert(
        fc.asyncProperty(withValues(model), fc.array(fc.boolean(), { minLength: model.length, maxLength: model.length }), ([records, values, page], given) =>
          checks.inRun(async () => {
            await checks.store(records);
            const chosen = model.map(([name, spec], i) => ({ name, spec, value: values[i] })).filter((_, i) => given[i]);
            const { after, rows } = expectedPage(records, (r) => chosen.every(({ spec, value }) => matches(spec, r, value)), page);
            const filter = Object.fromEntries(chosen.map(({ name, value }) => [name, value]));
            expect(await checks.repo().list(tenant, filter, { ...page, after })).toStrictEqual(rows);
            // deleteWhere removes what the same filters select, soft-deleted records too.
            const all = records.filter((r) => (resource.tenant === undefined || r[resource.tenant.key] === tenant) && chosen.every(({ spec, value }) => matches(spec, r, value)));
            expect(await checks.repo().deleteWhere(tenant, filter)).toBe(all.length);
          }),
        ),
        { numRuns: checks.runs },
      );
    });
  }
}
