/**
 * `cf.<key>=<value>` lists on PostgreSQL come out of an index already newest first, whichever form
 * the value's count picks (custom-field-values.ts): a value few hold walks the list's id index
 * backward through the holders' ids (`= ANY(ARRAY(…))`, read from the value index), never a
 * semi-join over the whole table and a sort; a value many hold walks the list's own index and
 * probes the value index per row. The same for a bulk selectAll's 1 000-record page, for two
 * filters at once (the rarer value's holders probed for the other in the value index alone), and for tasks and observables, whose parent's marking is one lookup per row.
 * The schema is seeded through the repositories (so the value index is written as in use),
 * vacuumed and analyzed. SQLite's plans are pinned in the resources' own plan tests.
 */
import { describe, expect, it } from "vitest";
import type { Storage } from "../../core/index.js";
import { listQuery } from "../../adapters/declare/sql.js";
import type { Resource } from "../../adapters/declare/resource.js";
import { postgresDialect } from "../../adapters/postgres/dialect.js";
import { caseResource } from "../../adapters/resources/cases.js";
import { observableResource } from "../../adapters/resources/observables.js";
import { taskResource } from "../../adapters/resources/tasks.js";
import { inPlanSchema, postgresPlan } from "../helpers/plans.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";
import { observableRecord } from "./suite-observables.js";
import { taskRecord } from "./task-record.js";

const run = await postgresShouldRun("custom field query plans");

// No sort, no hashing, no table read whole (the seed holds no alerts: an empty table is scanned,
// which says nothing of the plan at scale).
const never = /Sort|Semi Join|Hash|hashed|Seq Scan on (?!alerts )/;

/** 1 % critical, 25 % high, the rest low; half flagged. */
const impactOf = (i: number): string => (i % 100 === 3 ? "critical" : i % 4 === 1 ? "high" : "low");

async function seed(storage: Storage): Promise<string> {
  const f = createFixtures();
  const org = f.organization();
  await storage.transaction(async (tx) => {
    await tx.organizations.insert(org);
    for (let i = 0; i < 2000; i++) {
      const customFields = { impact: impactOf(i), flag: i % 2 === 0 };
      const parent = f.caseRecord(org.id, { tlp: 1, customFields });
      await tx.cases.insert(parent);
      await tx.tasks.insert(taskRecord(f.ids.next("task"), org.id, parent.id, f.at(), { title: `Task ${i}`, tlp: 1, order: i, customFields }));
      await tx.observables.insert(observableRecord(f, org.id, { caseId: parent.id, data: `10.0.${i >> 8}.${i & 255}`, customFields }));
    }
  });
  return org.id;
}

const lists = [
  ["cases", caseResource, "case"],
  ["tasks", taskResource, "task"],
  ["observables", observableResource, "observable"],
] as const;

describe.skipIf(!run)("custom field list query plans: postgres", () => {
  it("a value few hold, one filter, two, and a selectAll page: the id index walked backward through the holders; a value many hold: the list's index walked and the value index probed; never a sort", async () => {
    await inPlanSchema("casekit_cfplan", async (storage, pool) => {
      const orgId = await seed(storage);
      // Vacuumed too, as a table that has been in use is: the value index then answers alone.
      await pool.query("vacuum analyze");
      const explain = (resource: Resource, filter: object, limit: number) => {
        const query = listQuery(resource, postgresDialect, orgId, { maxTlp: 4, ...filter } as never, { limit, order: "desc" })!;
        return postgresPlan(pool, { sql: query.text, params: query.params });
      };
      for (const [table, resource, entity] of lists) {
        const lookup = (key: string, value: string) => `${orgId}|${entity}|${key}|${value}`;
        const rare = { heldBy1: [lookup("impact", "critical")] };
        for (const detail of [await explain(resource, rare, 51), await explain(resource, rare, 1001)]) {
          expect(detail).toMatch(new RegExp(`Index Scan Backward using ${table}_pkey on ${table} [^\\n]*\\n\\s*Index Cond: \\(id = ANY \\(\\$\\d\\)\\)`));
          expect(detail).toMatch(/Index Only Scan using custom_field_values_lookup_idx on custom_field_values/);
          expect(detail).not.toMatch(never);
        }
        const common = await explain(resource, { commonField0: lookup("impact", "high") }, 51);
        expect(common).toMatch(new RegExp(`Index Scan Backward using (${table}_pkey|${table}_organization_id_idx) on ${table}`));
        expect(common).toMatch(/Index Only Scan using custom_field_values_lookup_idx on custom_field_values v/);
        expect(common).not.toMatch(never);
        // Two values, the rarer first: its holders are probed for the other value in the value
        // index alone, and only records holding both are read.
        const both = await explain(resource, { heldBy2: [lookup("impact", "critical"), lookup("flag", "false")] }, 51);
        expect(both).toMatch(new RegExp(`Index Scan Backward using ${table}_pkey on ${table}`));
        expect(both).toMatch(/Index Only Scan using custom_field_values_lookup_idx on custom_field_values h/);
        expect(both).toMatch(/Index Only Scan using custom_field_values_lookup_idx on custom_field_values o0/);
        expect(both).not.toMatch(never);
      }
    });
  }, 300_000);
});
