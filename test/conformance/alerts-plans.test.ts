/**
 * The alert reads that must stay fast at millions of alerts, on both adapters: alerts by source
 * (`GET /metrics/alerts/source`) sums the per-hour counters of alert_source_counts, and counts only
 * the partial hours at the edges of its range from the covering index
 * alerts_organization_id_created_at_idx (one seek each); a page deep in the cursor chain is one seek on (organization_id, id), rows coming out
 * already newest first, exactly like the first page. SQLite's plans are read with EXPLAIN QUERY
 * PLAN; PostgreSQL's with EXPLAIN over a few thousand rows of several organizations, after VACUUM
 * ANALYZE. PostgreSQL: CASEKIT_TEST_POSTGRES_URL, skipped with a printed reason outside CI when no
 * server answers (as postgres.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { Alert, AlertFilter, AlertSourceCountFilter } from "../../core/index.js";
import { listQuery } from "../../adapters/declare/sql.js";
import { postgresDialect } from "../../adapters/postgres/dialect.js";
import { sourceCountQuery } from "../../adapters/resources/alert-source-counts.js";
import { alertResource } from "../../adapters/resources/alerts.js";
import { sqliteDialect } from "../../adapters/sqlite/dialect.js";
import { alertRecord } from "./alert-record.js";
import { inPlanSchema, postgresPlan, sqlitePlan } from "../helpers/plans.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";

const deepId = "alert_01kaaaaaaaaaaaaaaaaaaaaaaa";

describe("alert query plans: sqlite", () => {
  const list = (filter: AlertFilter, beforeId?: string) => sqlitePlan(listQuery(alertResource, sqliteDialect, "org_1", filter, { limit: 51, order: "desc", after: beforeId })!);
  const metric = (filter: AlertSourceCountFilter) => sqlitePlan(sourceCountQuery(sqliteDialect, "org_1", filter)!);

  it("alerts by source without bounds, or with bounds on the hour, reads only the counters, already grouped by source", () => {
    for (const filter of [{ maxTlp: 2 }, { maxTlp: 4, statusValue: ["new" as const, "closed" as const], from: "2026-01-01T00:00:00.000Z", to: "2026-02-01T00:00:00.000Z" }]) {
      const detail = metric(filter);
      expect(detail).toMatch(/SEARCH alert_source_counts USING PRIMARY KEY \(organization_id=\?\)/);
      expect(detail).not.toMatch(/\balerts\b|TEMP B-TREE/);
    }
  });

  it("alerts by source counts the partial hours at the edges from the covering created_at index, one seek each", () => {
    const detail = metric({ maxTlp: 4, statusValue: ["new"], from: "2026-01-01T00:10:00.000Z", to: "2026-02-01T00:50:00.000Z" });
    expect(detail).toMatch(/SEARCH alert_source_counts USING PRIMARY KEY \(organization_id=\?\)/);
    const seeks = detail.match(/SEARCH alerts USING COVERING INDEX alerts_organization_id_created_at_idx \(organization_id=\? AND created_at>\? AND created_at<\?\)/g);
    expect(seeks).toHaveLength(2);
    expect(detail).not.toMatch(/SCAN alerts\b/);
    // Within one hour there is nothing for the counters: only the seek.
    const inside = metric({ maxTlp: 4, from: "2026-01-01T00:10:00.000Z", to: "2026-01-01T00:50:00.000Z" });
    expect(inside).toMatch(/SEARCH alerts USING COVERING INDEX alerts_organization_id_created_at_idx \(organization_id=\? AND created_at>\? AND created_at<\?\)/);
    expect(inside).not.toMatch(/alert_source_counts/);
  });

  it("a deep page is one seek on (organization_id, id) below the cursor, without sorting, as the first page is", () => {
    const deep = list({ maxTlp: 4 }, deepId);
    expect(deep).toMatch(/SEARCH alerts USING INDEX alerts_organization_id_idx \(organization_id=\? AND id<\?\)/);
    expect(deep).not.toMatch(/TEMP B-TREE/);
    expect(list({ maxTlp: 4 })).toMatch(/SEARCH alerts USING INDEX alerts_organization_id_idx \(organization_id=\?\)/);
  });

  it.each([
    ["statusValue", { maxTlp: 4, statusValue: ["new" as const] }, "alerts_organization_id_status_value_idx \\(organization_id=\\? AND status_value=\\? AND id<\\?\\)"],
    ["severity", { maxTlp: 4, severity: [3] }, "alerts_organization_id_severity_idx \\(organization_id=\\? AND severity=\\? AND id<\\?\\)"],
    ["assigneeId", { maxTlp: 4, assigneeId: ["user_1"] }, "alerts_organization_id_assignee_id_idx \\(organization_id=\\? AND assignee_id=\\? AND id<\\?\\)"],
  ])("one %s walks its own index below the cursor, without sorting", (_name, filter, index) => {
    const detail = list(filter, deepId);
    expect(detail).toMatch(new RegExp(`SEARCH alerts USING INDEX ${index}`));
    expect(detail).not.toMatch(/TEMP B-TREE/);
  });
});

const run = await postgresShouldRun("alert query plans");

describe.skipIf(!run)("alert query plans: postgres", () => {
  it("alerts by source reads the counters (and the created_at index at its edges); a deep page is a backward index scan from the cursor, no sort", async () => {
    await inPlanSchema("casekit_alertplan", async (storage, pool) => {
      const f = createFixtures();
      const orgs = Array.from({ length: 8 }, () => f.organization());
      const alerts: Alert[] = [];
      // A minute apart: about 130 hours, so a partial hour at an edge is a small slice of them.
      const start = Date.parse("2026-01-01T00:00:00.000Z");
      for (let i = 0; i < 8000; i++) {
        const at = new Date(start + i * 60_000).toISOString();
        alerts.push(
          alertRecord(f.ids.next("alert"), orgs[i % orgs.length]!.id, at, {
            title: `Alert ${i}`,
            severity: (i % 4) + 1,
            tlp: i % 5,
            source: ["edr", "siem", "waf", "ids"][i % 4]!,
            sourceRef: `ref-${i}`,
            statusValue: (["new", "acknowledged", "closed"] as const)[i % 3]!,
            deletedAt: i % 11 === 0 ? at : null,
          }),
        );
      }
      await storage.transaction(async (tx) => {
        for (const org of orgs) await tx.organizations.insert(org);
        for (const alert of alerts) await tx.alerts.insert(alert);
      });
      await pool.query("vacuum analyze alerts");
      await pool.query("vacuum analyze alert_source_counts");
      const explain = (query: { text: string; params: unknown[] }) => postgresPlan(pool, { sql: query.text, params: query.params });
      const organizationId = orgs[0]!.id;

      const metric = (filter: AlertSourceCountFilter) => explain(sourceCountQuery(postgresDialect, organizationId, filter)!);

      // Without bounds, or on the hour, the counters alone (their primary key, or a scan of a
      // table this small: PostgreSQL's costing to decide). Never the alerts.
      const plain = await metric({ maxTlp: 4 });
      const aligned = await metric({ maxTlp: 3, statusValue: ["new", "closed"], from: "2026-01-02T00:00:00.000Z", to: "2026-01-03T00:00:00.000Z" });
      for (const detail of [plain, aligned]) {
        expect(detail).toMatch(/on alert_source_counts/);
        expect(detail).not.toMatch(/on alerts\b/);
      }
      // Off the hour, each partial hour is read from the covering created_at index (index-only,
      // or a bitmap scan of it), never by scanning the alerts.
      const edges = await metric({ maxTlp: 3, statusValue: ["new", "closed"], from: alerts[100]!.createdAt, to: "2026-01-03T00:30:00.000Z" });
      expect(edges).toMatch(/on alert_source_counts/);
      expect(edges.match(/(Index Only Scan|Bitmap Index Scan) (using|on) alerts_organization_id_created_at_idx/g)).toHaveLength(2);
      expect(edges).not.toMatch(/Seq Scan on alerts\b/);

      const deep = await explain(listQuery(alertResource, postgresDialect, organizationId, { maxTlp: 4 }, { limit: 51, order: "desc", after: alerts[4000]!.id })!);
      // (organization_id, id), or the primary key filtered by organization when the planner finds
      // the organization's rows dense enough: either way a walk down from the cursor, no sort.
      expect(deep).toMatch(/Index Scan Backward using (alerts_organization_id_idx|alerts_pkey) on alerts/);
      expect(deep).toMatch(/Index Cond: .*id < /);
      expect(deep).not.toMatch(/Seq Scan on alerts|Sort/);
    });
  }, 120_000);
});
