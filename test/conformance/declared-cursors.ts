/**
 * Keyset cursors, derived: a walk of pages in either order, with records inserted, deleted and
 * soft-deleted between its pages, gets at each page exactly what a model of the table holds past
 * the cursor; so every record live throughout is seen exactly once, and a descending walk never
 * sees the records inserted after it began (their ids sort above the cursor).
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import type { Row } from "./declared-records.js";
import { byId, contentArbitrary, datasetArbitrary, isDeleted, later, mayClash, recordWith, tenants, visibleTo } from "./declared-records.js";
import type { Checks } from "./declared-suite.js";

/** What happens between two pages: a record inserted, or the `pick`th stored one deleted or soft-deleted. */
type Step = { kind: "insert"; tenant: string | null; content: Row } | { kind: "delete" | "softDelete"; pick: number };

export function describeCursors(checks: Checks): void {
  const { resource } = checks;
  const idOf = (record: Row) => record[resource.id.key] as string;
  const tenant = resource.tenant === undefined ? null : tenants[0];
  const owner = resource.tenant === undefined ? fc.constant(null) : fc.constantFrom<string | null>(...tenants);
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant("insert" as const), tenant: owner, content: contentArbitrary(resource) }),
    fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
    ...(resource.softDelete ? [fc.record({ kind: fc.constant("softDelete" as const), pick: fc.nat() })] : []),
  );

  for (const order of ["asc", "desc"] as const) {
    it(`keyset pages ${order === "asc" ? "ascending" : "descending"} walk every live record once while records come and go between pages`, async () => {
      await fc.assert(
        fc.asyncProperty(datasetArbitrary(resource), fc.integer({ min: 1, max: 4 }), fc.array(step, { maxLength: 6 }), (records, limit, steps) =>
          checks.inRun(async () => {
            const repo = checks.repo();
            await checks.store(records);
            const table = new Map(records.map((r) => [idOf(r), r]));
            const nextId = later(resource);
            const inserted = new Set<string>();
            const seen: string[] = [];
            let after: string | undefined;
            for (let page = 0; ; page++) {
              const found = await repo.list(tenant, {}, { limit, order, after });
              const past = byId(resource, visibleTo(resource, tenant, [...table.values()])).filter((r) => after === undefined || (order === "asc" ? idOf(r) > after : idOf(r) < after));
              const expected = (order === "asc" ? past : past.reverse()).slice(0, limit);
              expect(found, `page ${page}`).toStrictEqual(expected);
              seen.push(...found.map(idOf));
              if (found.length < limit) break;
              after = idOf(found.at(-1)!);
              const change = steps[page];
              if (change === undefined) continue;
              const stored = [...table.values()];
              if (change.kind === "insert") {
                const record = recordWith(resource, nextId(), change.tenant, change.content);
                if (mayClash(resource, record, stored)) continue;
                await repo.insert(record);
                table.set(idOf(record), record);
                inserted.add(idOf(record));
              } else if (change.kind === "delete" && stored.length > 0) {
                const record = stored[change.pick % stored.length]!;
                const owner = resource.tenant === undefined ? null : (record[resource.tenant.key] as string);
                expect(await repo.delete(owner, idOf(record))).toBe(true);
                table.delete(idOf(record));
              } else if (change.kind === "softDelete") {
                const live = stored.filter((r) => !isDeleted(resource, r));
                if (live.length === 0) continue;
                const record = { ...live[change.pick % live.length]!, [resource.softDelete!.key]: "2026-02-02T02:02:02.222Z" };
                expect(await repo.update(record)).toBe(true);
                table.set(idOf(record), record);
              }
            }
            expect(new Set(seen).size, "no record seen twice").toBe(seen.length);
            const throughout = visibleTo(resource, tenant, [...table.values()]).filter((r) => !inserted.has(idOf(r)) && records.some((o) => idOf(o) === idOf(r) && !isDeleted(resource, o)));
            for (const record of throughout) expect(seen, "a record live throughout is seen").toContain(idOf(record));
            if (order === "desc") for (const id of inserted) expect(seen, "a descending walk never sees what was inserted above it").not.toContain(id);
          }),
        ),
        { numRuns: checks.runs },
      );
    });
  }
}
