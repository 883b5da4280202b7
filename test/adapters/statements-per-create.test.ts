/**
 * What one case create costs the database, counted statement by statement (better-sqlite3's
 * `verbose` hook sees every statement run): the organization row is read once (its case number,
 * TLP chain head and definitions version together, held for the unit) and written once, at the
 * end of the unit; the organization's definitions come from the definitions cache.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { verifyTlpChain } from "../../core/tlp/chain.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { migratedMemoryDatabase } from "../helpers/migrated-sqlite.js";

async function countingKit() {
  const statements: string[] = [];
  const image = (await migratedMemoryDatabase()).serialize();
  const database = new Database(image, { verbose: (sql) => statements.push(String(sql)) });
  const storage = createSqliteStorage({ database });
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock: new ManualClock("2026-03-01T12:00:00.000Z"), config: { keyHashSecret } });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  // The key check's lastUsedAt touch is a unit of its own, queued without waiting; with group
  // commit it would share the first create's transaction. An empty unit behind it settles only
  // after that commit, so every create below is counted alone.
  await storage.transaction(async () => undefined);
  return { kit, admin, statements, organizationId: init.organization.id, close: () => storage.close().then(() => database.close()) };
}

const touches = (statements: readonly string[], pattern: RegExp) => statements.filter((sql) => pattern.test(sql));

describe("statements per case create", () => {
  it("reads and writes the organization row once each, and the chain still verifies", async () => {
    const { kit, admin, statements, organizationId, close } = await countingKit();
    try {
      for (let i = 1; i <= 3; i++) {
        statements.length = 0;
        const created = await kit.cases.create(admin, { title: `case ${i}`, severity: 2, tlp: 2 });
        expect(created.number).toBe(i);
        // The create's unit, from its BEGIN (an earlier unit may still be committing when counting starts).
        const unit = statements.slice(statements.findIndex((sql) => sql.startsWith("BEGIN")));
        expect(touches(unit, /^SELECT [^;]*\bFROM organizations\b/i)).toHaveLength(1);
        expect(touches(unit, /^UPDATE organizations\b/i)).toHaveLength(1);
        // BEGIN, the counters (with the definitions version: the same statement), the case, its
        // first status history entry, its audit entry, its event, its TLP entry, the counters,
        // COMMIT: 9. The organization's custom field definitions (none: customFields stay
        // free-form) and case lifecycle (none stored: the built-in one) are read by the first
        // create only, into the definitions cache, and reused while the version is unchanged
        // (11 before the cache, 10 before custom fields, 8 before lifecycles; before that 10,
        // the head read twice and the row updated twice). A case with no custom field values
        // writes no value row.
        const cold = i === 1 ? 1 : 0;
        expect(touches(unit, /\bFROM custom_fields\b/i)).toHaveLength(cold);
        expect(touches(unit, /custom_field_values/i)).toHaveLength(0);
        expect(touches(unit, /\bFROM lifecycles\b/i)).toHaveLength(cold);
        expect(touches(unit, /definitions_version/i)).toHaveLength(1);
        expect(touches(unit, /^INSERT INTO status_history\b/i)).toHaveLength(1);
        expect(unit).toHaveLength(9 + 2 * cold);
      }
      // A definitions change moves the version: the next create reads the definitions again, once.
      await kit.customFields.create(admin, { key: "impact", label: "Impact", scopes: ["case"], type: "text" });
      for (const reads of [1, 0]) {
        statements.length = 0;
        await kit.cases.create(admin, { title: "after a change", severity: 2, tlp: 2, customFields: { impact: "low" } });
        const unit = statements.slice(statements.findIndex((sql) => sql.startsWith("BEGIN")));
        expect(touches(unit, /\bFROM custom_fields\b/i)).toHaveLength(reads);
        expect(touches(unit, /\bFROM lifecycles\b/i)).toHaveLength(reads);
      }
      const chain = await kit.storage.read((tx) => tx.tlpAudit.chain(organizationId, 0, 100));
      expect(verifyTlpChain(chain)).toEqual({ ok: true, checked: chain.length });
      expect(await kit.storage.read((tx) => tx.tlpAudit.head(organizationId))).toEqual({ seq: chain.at(-1)!.seq, hash: chain.at(-1)!.hash });
    } finally {
      await close();
    }
  });
});
