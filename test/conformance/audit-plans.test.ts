/**
 * Audit event reads must cost the same deep in the log as at its start: a newest-first page walks
 * audit_log_organization_id_seq_unique backwards, a reader following the log (pageAfter: export,
 * stream) walks audit_log_organization_id_last_seq_unique forwards, a case's trail walks
 * audit_log_case_idx and the small index of groups spanning several cases; none sorts. SQLite's
 * plans, read with EXPLAIN QUERY PLAN (plans there do not depend on data); PostgreSQL's with
 * EXPLAIN over a few thousand events of two organizations, after ANALYZE (skipped with a printed
 * reason outside CI when no server answers, as postgres.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { AuditEventFilter } from "../../core/index.js";
import type { CaseRows } from "../../adapters/resources/audit.js";
import { auditPageQuery } from "../../adapters/resources/audit.js";
import { postgresDialect } from "../../adapters/postgres/dialect.js";
import { sqliteDialect } from "../../adapters/sqlite/dialect.js";
import { inPlanSchema, postgresPlan, sqlitePlan } from "../helpers/plans.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";

const plan = (direction: "asc" | "desc", position: number | undefined, filter: AuditEventFilter, caseRows: CaseRows = "own") =>
  sqlitePlan(auditPageQuery(sqliteDialect, { organizationId: "org_1", direction, position, limit: 51, filter, caseRows }));

describe("audit event query plans: sqlite", () => {
  it.each([
    ["newest first, first page", "desc", undefined, {}, "own", /SEARCH audit_log USING INDEX audit_log_organization_id_seq_unique \(organization_id=\?\)/],
    ["newest first, deep page", "desc", 1_000_000, {}, "own", /SEARCH audit_log USING INDEX audit_log_organization_id_seq_unique \(organization_id=\? AND seq<\?\)/],
    ["newest first, filtered by action and time", "desc", 1_000_000, { action: ["case.updated"], from: "2026-01-01T00:00:00.000Z" }, "own", /USING INDEX audit_log_organization_id_seq_unique \(organization_id=\? AND seq<\?\)/],
    ["following the log from a position (pageAfter)", "asc", 1_000_000, {}, "own", /SEARCH audit_log USING INDEX audit_log_organization_id_last_seq_unique \(organization_id=\? AND last_seq>\?\)/],
    ["a case's own events", "desc", 1_000_000, { caseId: "case_1" }, "own", /SEARCH audit_log USING INDEX audit_log_case_idx \(organization_id=\? AND case_id=\? AND seq<\?\)/],
    ["a case's events in groups spanning several cases", "desc", 1_000_000, { caseId: "case_1" }, "mixed", /SEARCH audit_log USING INDEX audit_log_mixed_groups_idx \(organization_id=\? AND seq<\?\)/],
  ] as const)("%s: one index range, no sort", (_name, direction, position, filter, caseRows, index) => {
    const detail = plan(direction, position, filter as AuditEventFilter, caseRows);
    expect(detail).toMatch(index);
    expect(detail).not.toMatch(/TEMP B-TREE|SCAN audit_log/);
  });
});

const run = await postgresShouldRun("audit event query plans");

describe.skipIf(!run)("audit event query plans: postgres", () => {
  it("newest first deep in the log, following it from a position, and a case's trail: index scans, no sort, no sequential scan", async () => {
    await inPlanSchema("casekit_auditplan", async (storage, pool) => {
      const f = createFixtures();
      const orgs = [f.organization(), f.organization()];
      await storage.transaction(async (tx) => {
        for (const org of orgs) await tx.organizations.insert(org);
      });
      for (let batch = 0; batch < 8; batch++) {
        await storage.transaction(async (tx) => {
          for (const org of orgs) {
            // One big case (the one read) among small ones, as in a real organization.
            const events = Array.from({ length: 250 }, (_, i) => f.auditEntry(org.id, { target: { type: "task", id: `task_${batch}_${i}`, caseId: i % 5 === 0 ? `case_${i % 40}` : "case_3" } }));
            await tx.audit.appendMany(events);
          }
        });
      }
      await pool.query("analyze");
      const explain = (direction: "asc" | "desc", position: number | undefined, filter: AuditEventFilter, caseRows: CaseRows = "own") => {
        const query = auditPageQuery(postgresDialect, { organizationId: orgs[0]!.id, direction, position, limit: 51, filter, caseRows });
        return postgresPlan(pool, { sql: query.text, params: query.params });
      };
      const cases: [string, RegExp][] = [
        [await explain("desc", 1_000, {}), /Index Scan Backward using audit_log_organization_id_seq_unique/],
        [await explain("asc", 1_000, {}), /Index Scan using audit_log_organization_id_last_seq_unique/],
        [await explain("desc", 1_500, { caseId: "case_3" }), /Index Scan Backward using audit_log_case_idx/],
      ];
      for (const [detail, index] of cases) {
        expect(detail).toMatch(index);
        expect(detail).not.toMatch(/Seq Scan on audit_log|Sort/);
      }
    });
  }, 60_000);
});
