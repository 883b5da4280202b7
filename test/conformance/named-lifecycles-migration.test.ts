/**
 * The migration that names lifecycles (SQLite 0011, PostgreSQL 0012), on a database that already
 * holds a published case lifecycle and case types, one with the opaque `lifecycle` key they could
 * carry before: the published version becomes the organization's `default` lifecycle, the opaque
 * key is cleared (no named lifecycle answers to it, so its cases keep the lifecycle they follow),
 * and types gain no default severity. The database is first migrated with a copy of the shipped
 * migrations that stops before this one. PostgreSQL: skipped with a printed reason outside CI
 * when no server answers (as postgres.test.ts).
 */
import { migrationScratch, upgradePostgres, upgradeSqlite } from "../helpers/migrations-before.js";
import type { RawSql } from "../helpers/migrations-before.js";
import { afterAll, describe, expect, it } from "vitest";
import type { Storage } from "../../core/index.js";
import { defaultLifecycles } from "../../core/index.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";

const scratch = migrationScratch("named-lifecycles-migration");
afterAll(() => scratch.remove());

const at = "2026-01-01T00:00:00.000Z";

/** `$n` placeholders with casts on PostgreSQL, `?` on SQLite. */
type Placeholders = (casts: readonly string[]) => string;
const sqlitePlaceholders: Placeholders = (casts) => casts.map(() => "?").join(", ");
const postgresPlaceholders: Placeholders = (casts) => casts.map((cast, i) => `$${i + 1}${cast ? `::${cast}` : ""}`).join(", ");

async function seed(before: Storage, raw: RawSql, placeholders: Placeholders) {
  const f = createFixtures();
  const org = f.organization();
  await before.transaction((tx) => tx.organizations.insert(org));
  const lifecycleId = f.ids.next("lcy");
  const { statuses, transitions } = defaultLifecycles.case;
  await raw(
    `INSERT INTO lifecycles (id, organization_id, entity, version, statuses, transitions, mapping, created_at, created_by) VALUES (${placeholders(["", "", "", "", "jsonb", "jsonb", "jsonb", "timestamptz", ""])})`,
    [lifecycleId, org.id, "case", 1, JSON.stringify(statuses), JSON.stringify(transitions), "{}", at, null],
  );
  const typeColumns = "id, organization_id, key, label, description, default_tlp, default_pap, custom_fields, lifecycle, archived_at, created_at, updated_at, created_by";
  const casts = ["", "", "", "", "", "", "", "jsonb", "", "", "timestamptz", "timestamptz", ""];
  const opaque = f.ids.next("ctype");
  const plain = f.ids.next("ctype");
  await raw(`INSERT INTO case_types (${typeColumns}) VALUES (${placeholders(casts)})`, [opaque, org.id, "phishing", "Phishing", null, 2, null, "[]", "sla-gold", null, at, at, null]);
  await raw(`INSERT INTO case_types (${typeColumns}) VALUES (${placeholders(casts)})`, [plain, org.id, "malware", "Malware", null, null, null, "[]", null, null, at, at, null]);
  return { organizationId: org.id, lifecycleId };
}

async function expectMigrated(after: Storage, seeded: Awaited<ReturnType<typeof seed>>) {
  const { organizationId, lifecycleId } = seeded;
  const current = await after.read((tx) => tx.lifecycles.current(organizationId, "case", "default"));
  expect(current).toMatchObject({ id: lifecycleId, key: "default", version: 1 });
  expect((await after.read((tx) => tx.lifecycles.currentAll(organizationId, "case"))).map((l) => l.key)).toEqual(["default"]);
  const types = await after.read(async (tx) => [await tx.caseTypes.findByKey(organizationId, "phishing"), await tx.caseTypes.findByKey(organizationId, "malware")]);
  expect(types.map((t) => [t?.key, t?.lifecycle, t?.defaultSeverity, t?.defaultTlp])).toEqual([
    ["phishing", null, null, 2],
    ["malware", null, null, null],
  ]);
  // A named version of the same number is no clash with the default's.
  await after.transaction((tx) => tx.lifecycles.insert({ ...current!, id: "lcy_01kzzzzzzzzzzzzzzzzzzzzzzz", key: "sla-gold" }));
  expect((await after.read((tx) => tx.lifecycles.currentAll(organizationId, "case"))).map((l) => l.key)).toEqual(["default", "sla-gold"]);
}

describe("named lifecycles migration: sqlite", () => {
  it("keeps the published version as the default lifecycle and clears case types' opaque lifecycle keys", async () => {
    await upgradeSqlite(scratch, "0011_named_lifecycles", {
      seed: (before, raw) => seed(before, raw, sqlitePlaceholders),
      check: (after, seeded) => expectMigrated(after, seeded),
    });
  });
});

const run = await postgresShouldRun("named lifecycles migration");

describe.skipIf(!run)("named lifecycles migration: postgres", () => {
  it("keeps the published version as the default lifecycle and clears case types' opaque lifecycle keys", async () => {
    await upgradePostgres(scratch, "0012_named_lifecycles", {
      seed: (before, raw) => seed(before, raw, postgresPlaceholders),
      check: (after, seeded) => expectMigrated(after, seeded),
    });
  }, 60_000);
});
