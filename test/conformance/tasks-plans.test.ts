/**
 * Task lists (`GET /tasks`, `GET /cases/{caseId}/tasks`, and bulk selectAll, which walks the same
 * list) must cost the same on a deep page as on the first: the page comes out of an index already
 * newest first, the keyset only narrows the same index range, and the case's marking is one
 * primary-key lookup per row. SQLite's plan is read with EXPLAIN QUERY PLAN; PostgreSQL's with
 * EXPLAIN over a few thousand rows, after ANALYZE. PostgreSQL: CASEKIT_TEST_POSTGRES_URL, skipped
 * with a printed reason outside CI when no server answers (as postgres.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { Task, TaskFilter } from "../../core/index.js";
import { listQuery } from "../../adapters/declare/sql.js";
import { postgresDialect } from "../../adapters/postgres/dialect.js";
import { taskResource } from "../../adapters/resources/tasks.js";
import { sqliteDialect } from "../../adapters/sqlite/dialect.js";
import { inPlanSchema, postgresPlan, sqlitePlan } from "../helpers/plans.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { taskRecord } from "./task-record.js";
import { createFixtures } from "./fixtures.js";

const deepId = "task_01kjzzzzzzzzzzzzzzzzzzzzzz";

describe("task list query plans: sqlite", () => {
  const plan = (filter: TaskFilter, beforeId?: string) => sqlitePlan(listQuery(taskResource, sqliteDialect, "org_1", filter, { limit: 51, order: "desc", after: beforeId })!);

  it.each([
    ["no filter", { maxTlp: 3 }, "tasks_organization_id_idx"],
    ["one case (GET /cases/{caseId}/tasks)", { maxTlp: 3, caseId: ["case_1"] }, "tasks_organization_id_case_id_idx"],
    ["one status", { maxTlp: 2, status: ["waiting" as const] }, "tasks_organization_id_status_idx"],
    ["one assignee, with other filters", { maxTlp: 2, assigneeId: ["user_1"], mandatory: true, dueAfter: "2026-03-01T00:00:00.000Z" }, "tasks_organization_id_assignee_id_idx"],
  ])("%s: first and deep page walk %s without sorting, the case checked by primary key", (_name, filter, index) => {
    const first = plan(filter);
    const deep = plan(filter, deepId);
    expect(first).toMatch(new RegExp(`SEARCH tasks USING INDEX ${index} \\(`));
    expect(deep).toMatch(new RegExp(`SEARCH tasks USING INDEX ${index} \\(.*id<\\?\\)`));
    // The same plan but for the keyset bound.
    expect(deep.replace(" AND id<?", "")).toBe(first);
    for (const detail of [first, deep]) {
      expect(detail).not.toMatch(/TEMP B-TREE|SCAN tasks|SCAN cases/);
      expect(detail).toMatch(/SEARCH cases USING INDEX sqlite_autoindex_cases_1 \(id=\?\)/);
    }
  });

  it.each([
    ["no filter", { maxTlp: 4 }, "tasks_organization_id_idx"],
    ["one case", { maxTlp: 4, caseId: ["case_1"] }, "tasks_organization_id_case_id_idx"],
  ])("%s at the highest clearance: the same walk, and no case looked up (nothing to compare)", (_name, filter, index) => {
    for (const detail of [plan(filter), plan(filter, deepId)]) {
      expect(detail).toMatch(new RegExp(`SEARCH tasks USING INDEX ${index} \\(`));
      expect(detail).not.toMatch(/TEMP B-TREE|SCAN tasks|cases/);
    }
  });

  it.each([
    ["a value few hold: matches read from the value index, each sought by id", { heldBy1: ["org_1|task|effort|s"] }, /LIST SUBQUERY/],
    ["a value many hold: the list's own index walked, the value index probed per row", { commonField0: "org_1|task|effort|m" }, /SEARCH v USING COVERING INDEX custom_field_values_lookup_idx \(lookup=\? AND record_id=\?\)/],
  ])("cf.<key>, %s, without sorting", (_name, byValue, form) => {
    const detail = sqlitePlan(listQuery(taskResource, sqliteDialect, "org_1", { maxTlp: 4, ...byValue }, { limit: 51, order: "desc" })!);
    expect(detail).toMatch(/SEARCH tasks USING INDEX tasks_organization_id_idx/);
    expect(detail).toMatch(/USING COVERING INDEX custom_field_values_lookup_idx/);
    expect(detail).toMatch(form);
    expect(detail).not.toMatch(/TEMP B-TREE|SCAN /);
  });
});

const run = await postgresShouldRun("task query plans");

describe.skipIf(!run)("task list query plans: postgres", () => {
  it("one case's tasks: a backward index scan of tasks_organization_id_case_id_idx, no sort, on the first page and deep in the chain", async () => {
    await inPlanSchema("casekit_taskplan", async (storage, pool) => {
      const f = createFixtures();
      const org = f.organization();
      // One big case (the one listed) among small ones, as in a real organization.
      const parents = Array.from({ length: 20 }, () => f.caseRecord(org.id, { tlp: 1 }));
      const tasks: Task[] = [];
      for (let i = 0; i < 4000; i++) {
        tasks.push(taskRecord(f.ids.next("task"), org.id, parents[i % 5 === 0 ? i % parents.length : 3]!.id, f.at(), { title: `Task ${i}`, tlp: 1, order: i }));
      }
      await storage.transaction(async (tx) => {
        await tx.organizations.insert(org);
        for (const c of parents) await tx.cases.insert(c);
        for (const t of tasks) await tx.tasks.insert(t);
      });
      await pool.query("analyze");
      const explain = (beforeId: string | undefined, maxTlp = 3) => {
        const query = listQuery(taskResource, postgresDialect, org.id, { maxTlp, caseId: [parents[3]!.id] }, { limit: 51, order: "desc", after: beforeId })!;
        return postgresPlan(pool, { sql: query.text, params: query.params });
      };
      const mid = tasks.filter((t) => t.caseId === parents[3]!.id)[2000]!.id;
      for (const detail of [await explain(undefined), await explain(mid)]) {
        expect(detail).toMatch(/Index Scan Backward using tasks_organization_id_case_id_idx on tasks/);
        expect(detail).not.toMatch(/Seq Scan on tasks|Sort/);
      }
      // At the highest clearance no case is looked up; the walk is still in index order, unsorted
      // (PostgreSQL may then walk the primary key, this case holding most of the tasks).
      for (const detail of [await explain(undefined, 4), await explain(mid, 4)]) {
        expect(detail).toMatch(/Index Scan Backward using tasks_/);
        expect(detail).not.toMatch(/Seq Scan|Sort|cases/);
      }
    });
  }, 60_000);
});
