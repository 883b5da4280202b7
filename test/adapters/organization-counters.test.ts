// The definitions version a unit asks for (adapters/resources/organization-counters.ts): free once
// the unit holds the organization's counters; on SQLite, where a writing unit holds the whole
// database, read once per unit until the unit writes a definition itself (a selectAll bulk asks
// on every page).
import { describe, expect, it } from "vitest";
import type { Executor } from "../../adapters/declare/dialect.js";
import { definitionsWritten, organizationCounters } from "../../adapters/resources/organization-counters.js";
import { postgresDialect } from "../../adapters/postgres/dialect.js";
import { sqliteDialect } from "../../adapters/sqlite/dialect.js";
import type { UnitState } from "../../adapters/shared/unit-state.js";

/** An executor that answers the version query with `version.value` and counts what it ran. */
function versionExecutor(version: { value: number }): { executor: Executor; statements: string[] } {
  const statements: string[] = [];
  const executor: Executor = {
    all: async (sql) => {
      statements.push(sql);
      return [{ definitions_version: version.value }];
    },
    records: async () => [],
    run: async () => 0,
    guarded: async () => 0,
  };
  return { executor, statements };
}

describe("the definitions version a unit asks for", () => {
  it("on SQLite a writing unit reads it once; after it writes a definition, on every ask", async () => {
    const version = { value: 7 };
    const { executor, statements } = versionExecutor(version);
    const unit: UnitState = { open: true, writable: true };
    const counters = organizationCounters(sqliteDialect, executor, unit);
    for (let ask = 0; ask < 5; ask++) expect(await counters.definitionsVersion("org_a")).toBe(7);
    expect(statements).toHaveLength(1);
    // Another organization is its own read.
    expect(await counters.definitionsVersion("org_b")).toBe(7);
    expect(statements).toHaveLength(2);
    // The unit's own definition write moves the version (a trigger): read again, each time.
    definitionsWritten(unit, "org_a");
    version.value = 8;
    expect(await counters.definitionsVersion("org_a")).toBe(8);
    version.value = 9;
    expect(await counters.definitionsVersion("org_a")).toBe(9);
    expect(statements).toHaveLength(4);
    // A second repository of the same unit shares what the first read.
    expect(await organizationCounters(sqliteDialect, executor, unit).definitionsVersion("org_b")).toBe(7);
    expect(statements).toHaveLength(4);
  });

  it("a new unit reads it again", async () => {
    const version = { value: 1 };
    const { executor, statements } = versionExecutor(version);
    await organizationCounters(sqliteDialect, executor, { open: true, writable: true }).definitionsVersion("org_a");
    version.value = 2;
    expect(await organizationCounters(sqliteDialect, executor, { open: true, writable: true }).definitionsVersion("org_a")).toBe(2);
    expect(statements).toHaveLength(2);
  });

  it("a read-only unit, and any PostgreSQL unit that does not hold the row, reads it on every ask", async () => {
    for (const [dialect, writable] of [
      [sqliteDialect, false],
      [postgresDialect, true],
      [postgresDialect, false],
    ] as const) {
      const version = { value: 3 };
      const { executor, statements } = versionExecutor(version);
      const counters = organizationCounters(dialect, executor, { open: true, writable });
      expect(await counters.definitionsVersion("org_a")).toBe(3);
      version.value = 4;
      expect(await counters.definitionsVersion("org_a")).toBe(4);
      expect(statements).toHaveLength(2);
    }
  });
});
