/**
 * "Where else have we seen this IP?" (`GET /observables?data=…`) must cost one index seek on
 * (organization_id, data, id), rows coming out already newest first, on both adapters. SQLite's
 * plan is read with EXPLAIN QUERY PLAN; PostgreSQL's with EXPLAIN over a few thousand rows, after
 * ANALYZE. PostgreSQL: CASEKIT_TEST_POSTGRES_URL, skipped with a printed reason outside CI when no
 * server answers (as postgres.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { ObservableFilter } from "../../core/index.js";
import { listQuery } from "../../adapters/declare/sql.js";
import { postgresDialect } from "../../adapters/postgres/dialect.js";
import { observableResource } from "../../adapters/resources/observables.js";
import { sqliteDialect } from "../../adapters/sqlite/dialect.js";
import { inPlanSchema, postgresPlan, sqlitePlan } from "../helpers/plans.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";
import { observableRecord } from "./suite-observables.js";

describe("observable list query plans: sqlite", () => {
  const plan = (filter: ObservableFilter, beforeId?: string) => sqlitePlan(listQuery(observableResource, sqliteDialect, "org_1", filter, { limit: 50, order: "desc", after: beforeId })!);

  it("data=<one value> is one seek on observables_organization_id_data_idx, without sorting", () => {
    const detail = plan({ maxTlp: 4, data: ["192.0.2.1"] }, "obs_zzzzzzzzzzzzzzzzzzzzzzzzzz");
    expect(detail).toMatch(/SEARCH observables USING INDEX observables_organization_id_data_idx \(organization_id=\? AND data=\? AND id<\?\)/);
    expect(detail).not.toMatch(/SCAN observables|TEMP B-TREE/);
  });

  it("the parent checks are primary-key lookups, not scans", () => {
    const detail = plan({ maxTlp: 2, data: ["192.0.2.1"], ioc: true, dataType: ["ip"] });
    expect(detail).toMatch(/USING INDEX observables_organization_id_data_idx/);
    expect(detail).toMatch(/SEARCH cases USING INDEX sqlite_autoindex_cases_1 \(id=\?\)/);
    expect(detail).toMatch(/SEARCH alerts USING INDEX sqlite_autoindex_alerts_1 \(id=\?\)/);
    expect(detail).not.toMatch(/SCAN (cases|alerts)/);
  });

  it.each([
    ["a case's observables", { maxTlp: 4, caseId: ["case_1"] }, "observables_organization_id_case_id_idx"],
    ["an alert's observables", { maxTlp: 4, alertId: ["alert_1"] }, "observables_organization_id_alert_id_idx"],
    ["no filter", { maxTlp: 4 }, "observables_organization_id_idx"],
  ])("%s walk their own index without sorting", (_name, filter, index) => {
    const detail = plan(filter);
    expect(detail).toMatch(new RegExp(`USING INDEX ${index}`));
    expect(detail).not.toMatch(/TEMP B-TREE/);
  });

  it.each([
    ["a value few hold: matches read from the value index, each sought by id", { heldBy1: ["org_1|observable|verdict|malicious"] }, /LIST SUBQUERY/],
    ["a value many hold: the list's own index walked, the value index probed per row", { commonField0: "org_1|observable|verdict|benign" }, /SEARCH v USING COVERING INDEX custom_field_values_lookup_idx \(lookup=\? AND record_id=\?\)/],
  ])("cf.<key>, %s, without sorting", (_name, byValue, form) => {
    const detail = sqlitePlan(listQuery(observableResource, sqliteDialect, "org_1", { maxTlp: 4, ...byValue }, { limit: 50, order: "desc" })!);
    expect(detail).toMatch(/SEARCH observables USING INDEX observables_organization_id_idx/);
    expect(detail).toMatch(/USING COVERING INDEX custom_field_values_lookup_idx/);
    expect(detail).toMatch(form);
    expect(detail).not.toMatch(/TEMP B-TREE|SCAN /);
  });
});

const run = await postgresShouldRun("observable query plans");

describe.skipIf(!run)("observable list query plans: postgres", () => {
  it("data=<one value> is a backward index scan of observables_organization_id_data_idx, no sort", async () => {
    await inPlanSchema("casekit_obsplan", async (storage, pool) => {
      const f = createFixtures();
      const org = f.organization();
      const parent = f.caseRecord(org.id);
      await storage.transaction(async (tx) => {
        await tx.organizations.insert(org);
        await tx.cases.insert(parent);
        for (let i = 0; i < 3000; i++) await tx.observables.insert(observableRecord(f, org.id, { caseId: parent.id, data: `10.0.${i >> 8}.${i & 255}` }));
      });
      await pool.query("analyze");
      const query = listQuery(observableResource, postgresDialect, org.id, { maxTlp: 4, data: ["10.0.1.1"] }, { limit: 51, order: "desc" })!;
      const detail = await postgresPlan(pool, { sql: query.text, params: query.params });
      expect(detail).toMatch(/Index Scan Backward using observables_organization_id_data_idx on observables/);
      expect(detail).not.toMatch(/Seq Scan on observables|Sort/);
    });
  }, 60_000);
});
