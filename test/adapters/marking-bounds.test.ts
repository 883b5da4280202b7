/**
 * A list's bound on markings (`maxTlp`) is left out of the statement only where it compares
 * nothing: at the highest level, and only for resources whose bound is nothing but markings
 * (adapters/declare/resource.ts, `holdsFrom`). Checked for every declared resource with such a
 * bound, in both dialects: below the highest level the condition is always in the statement.
 */
import { describe, expect, it } from "vitest";
import { highestTlp, lowestTlp } from "../../core/access/clearance.js";
import type { Resource } from "../../adapters/declare/resource.js";
import { listQuery } from "../../adapters/declare/sql.js";
import { postgresDialect } from "../../adapters/postgres/dialect.js";
import { declaredTables } from "../../adapters/resources/tables.js";
import { sqliteDialect } from "../../adapters/sqlite/dialect.js";

const bounded = Object.entries(declaredTables as Record<string, Resource>).filter(([, resource]) => "maxTlp" in resource.filters);

describe("bounds on markings", () => {
  it("are declared by the resources that list marked records", () => {
    expect(bounded.map(([name]) => name).sort()).toEqual(["alerts", "cases", "observables", "tasks", "tlpAuditLog"]);
  });

  for (const [name, resource] of bounded) {
    const spec = resource.filters.maxTlp as { holdsFrom?: number };
    it(`${name}: holds for every row only from the highest level, if at all`, () => {
      expect(spec.holdsFrom === undefined || spec.holdsFrom === highestTlp).toBe(true);
    });

    for (const dialect of [sqliteDialect, postgresDialect]) {
      it(`${name}: every clearance below the highest is compared (${dialect === sqliteDialect ? "sqlite" : "postgres"})`, () => {
        const bare = listQuery(resource, dialect, "org_1", {}, { limit: 51, order: "desc" })!;
        for (let clearance = lowestTlp - 1; clearance < highestTlp; clearance++) {
          const query = listQuery(resource, dialect, "org_1", { maxTlp: clearance }, { limit: 51, order: "desc" })!;
          expect(query.text).not.toBe(bare.text);
          expect(query.params).toContain(clearance);
        }
        const highest = listQuery(resource, dialect, "org_1", { maxTlp: highestTlp }, { limit: 51, order: "desc" })!;
        if (spec.holdsFrom === undefined) expect(highest.text).not.toBe(bare.text);
        else expect(highest).toEqual(bare);
      });
    }
  }
});
