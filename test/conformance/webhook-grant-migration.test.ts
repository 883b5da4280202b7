/**
 * The migration that gives webhook subscriptions a grant (SQLite 0005, PostgreSQL 0006), on a
 * database that already holds subscriptions: each gets the key the audit trail names as its
 * creator, the lower of that key's and the owner's clearance, and that key's scopes; without a key
 * on record, the owner's clearance and every scope; without an owner, clearance 0. The database is
 * first migrated with a copy of the shipped migrations that stops before this one, and the old
 * rows are written with the columns of that time. PostgreSQL: CASEKIT_TEST_POSTGRES_URL, skipped
 * with a printed reason outside CI when no server answers (as postgres.test.ts).
 */
import { migrationScratch, upgradePostgres, upgradeSqlite } from "../helpers/migrations-before.js";
import type { RawSql } from "../helpers/migrations-before.js";
import { afterAll, describe, expect, it } from "vitest";
import type { Scope, Storage, StoredWebhook } from "../../core/index.js";
import { rowOf } from "../../adapters/declare/rows.js";
import { auditResource } from "../../adapters/resources/audit.js";
import { webhookResource, webhookToRecord } from "../../adapters/resources/webhooks.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { createFixtures } from "./fixtures.js";

/**
 * Every scope there was when the migration ran: it backfills a session's grant with that list,
 * written into its SQL. Scopes added since (audit:manage) are not in grants recorded before them.
 */
const scopesAtMigration: Scope[] = ["cases:read", "cases:write", "alerts:read", "alerts:write", "tasks:read", "tasks:write", "observables:read", "observables:write", "users:read", "keys:write", "users:write", "teams:write", "webhooks:read", "webhooks:write", "audit:read", "org:admin"];

const scratch = migrationScratch("grant-migration");
afterAll(() => scratch.remove());


type OldRow = Record<string, unknown>;

/**
 * An organization with an owner (clearance 3) and a key of theirs (clearance 1, two scopes), and
 * three subscriptions: one the trail says the key created, one created without a key (a session),
 * one whose owner is unknown. Returns the old-shaped rows to write and the grants expected.
 */
async function seed(storage: Storage): Promise<{ rows: OldRow[]; auditRows: OldRow[]; expected: Map<string, StoredWebhook["grant"]> }> {
  const f = createFixtures();
  const org = f.organization();
  const owner = f.user(org.id, { role: "admin", tlpClearance: 3 });
  const key = f.apiKey(owner, { tlpClearance: 1, scopes: ["cases:read", "webhooks:write"] });
  const webhook = (createdBy: string | null): StoredWebhook =>
    f.webhook(org.id, { name: "old", url: "https://hooks.example.com/old", events: ["*"], secret: "v1.sealed", secretStart: "whsec_old0", createdBy, grant: { keyId: null, tlpClearance: 0, scopes: [] } });
  const byKey = webhook(owner.id);
  const bySession = webhook(owner.id);
  const ownerless = webhook(null);
  await storage.transaction(async (tx) => {
    await tx.organizations.insert(org);
    await tx.users.insert(owner);
    await tx.apiKeys.insert(key);
  });
  const rows = [byKey, bySession, ownerless].map((w) => {
    const { grant_key_id: _k, grant_tlp_clearance: _c, grant_scopes: _s, ...old } = rowOf(webhookResource, webhookToRecord(w));
    return old as OldRow;
  });
  // The trail's entries as that time wrote them: without the columns later migrations add.
  const auditRows = [
    { resourceId: byKey.id, actorKeyId: key.id },
    { resourceId: bySession.id, actorKeyId: null },
  ].map(({ resourceId, actorKeyId }) => {
    const row = rowOf(auditResource, {
      id: f.ids.next("aud"),
      organizationId: org.id,
      seq: 0,
      lastSeq: 0,
      at: f.at(),
      actorType: "user",
      actorUserId: owner.id,
      actorKeyId,
      requestId: null,
      ip: null,
      userAgent: null,
      action: "webhook.created",
      resourceType: "webhook",
      resourceId,
      caseId: null,
      outcome: "success",
      changes: null,
      bulkRequestId: null,
      tlp: null,
      items: null,
      prevHash: "",
      hash: "",
    });
    const { items: _i, seq: _s, last_seq: _l, actor_type: _a, case_id: _c, outcome: _o, tlp: _t, prev_hash: _p, hash: _h, ...old } = row;
    return old as OldRow;
  });
  return {
    rows,
    auditRows,
    expected: new Map([
      [byKey.id, { keyId: key.id, tlpClearance: 1, scopes: ["cases:read", "webhooks:write"] }],
      [bySession.id, { keyId: null, tlpClearance: 3, scopes: [...scopesAtMigration] }],
      [ownerless.id, { keyId: null, tlpClearance: 0, scopes: [...scopesAtMigration] }],
    ]),
  };
}

async function expectGrants(storage: Storage, organizationId: string, expected: Map<string, StoredWebhook["grant"]>): Promise<void> {
  for (const [id, grant] of expected) {
    const found = await storage.read((tx) => tx.webhooks.findById(organizationId, id));
    expect(found?.grant, id).toEqual(grant);
  }
}

/** Inserts the webhooks and audit rows as the tables held them before the migration. */
async function insertRows(raw: RawSql, placeholder: (index: number) => string, seeded: Awaited<ReturnType<typeof seed>>): Promise<void> {
  for (const [table, tableRows] of [["audit_log", seeded.auditRows], ["webhooks", seeded.rows]] as const) {
    for (const row of tableRows) {
      const columns = Object.keys(row);
      await raw(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((_, i) => placeholder(i)).join(", ")})`, Object.values(row));
    }
  }
}

describe("webhook grant migration: sqlite", () => {
  it("backfills every existing subscription's grant from the audit trail, the key and the owner", async () => {
    await upgradeSqlite(scratch, "0005_subscription_grants", {
      async seed(before, raw) {
        const seeded = await seed(before);
        await insertRows(raw, () => "?", seeded);
        return seeded;
      },
      check: (after, { rows, expected }) => expectGrants(after, String(rows[0]!.organization_id), expected),
    });
  });
});

const run = await postgresShouldRun("webhook grant migration");

describe.skipIf(!run)("webhook grant migration: postgres", () => {
  it("backfills every existing subscription's grant from the audit trail, the key and the owner", async () => {
    await upgradePostgres(scratch, "0006_subscription_grants", {
      async seed(before, raw) {
        const seeded = await seed(before);
        await insertRows(raw, (i) => `$${i + 1}`, seeded);
        return seeded;
      },
      check: (after, { rows, expected }) => expectGrants(after, String(rows[0]!.organization_id), expected),
    });
  }, 60_000);
});
