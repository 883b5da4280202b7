/**
 * What one case create costs the database, counted statement by statement (better-sqlite3's
 * `verbose` hook sees every statement run): the organization row is read once (its case number
 * and TLP chain head together, held for the unit) and written once, at the end of the unit.
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
        // BEGIN, the counters, the organization's custom field definitions (none: customFields
        // stay free-form; read once for the values, the event and the answer), the organization's
        // case lifecycle (none stored: the built-in one), the case, its first status history
        // entry, its audit entry, its event, its TLP entry, the counters, COMMIT (10 before custom
        // fields, 8 before lifecycles; before that 10, the head read twice and the row updated
        // twice). A case with no custom field values writes no value row.
        expect(touches(unit, /\bFROM custom_fields\b/i)).toHaveLength(1);
        expect(touches(unit, /custom_field_values/i)).toHaveLength(0);
        expect(touches(unit, /\bFROM lifecycles\b/i)).toHaveLength(1);
        expect(touches(unit, /^INSERT INTO status_history\b/i)).toHaveLength(1);
        expect(unit).toHaveLength(11);
      }
      const chain = await kit.storage.read((tx) => tx.tlpAudit.chain(organizationId, 0, 100));
      expect(verifyTlpChain(chain)).toEqual({ ok: true, checked: chain.length });
      expect(await kit.storage.read((tx) => tx.tlpAudit.head(organizationId))).toEqual({ seq: chain.at(-1)!.seq, hash: chain.at(-1)!.hash });
    } finally {
      await close();
    }
  });
});
