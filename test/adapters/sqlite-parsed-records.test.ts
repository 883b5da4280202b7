// Records read as JSON text are parsed once while their text is unchanged (parsed-records.ts): a
// record is kept from its second read on, a kept record is used only for the very same text, so
// what a read gets is always what parsing its row gives; kept records are frozen whole and the
// kept texts stay within their bound.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ParsedRecords } from "../../adapters/sqlite/parsed-records.js";
import { storedJsonOf } from "../../core/stored-json.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createCaseKit } from "../../core/index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

const text = (id: string, title: string, tags: string[] = []) => JSON.stringify({ id, title, tags: tags.map((name) => ({ name })), customFields: { sla: { hours: 4 } } });

/** Whether `value` and everything it holds is frozen. */
function frozenWhole(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(frozenWhole);
}

describe("parsed records", () => {
  it("a record read once is not kept; from its second read on the same text gives the same record, frozen whole, with its text; another text of the same id a new one", () => {
    const records = new ParsedRecords();
    const once = records.record<{ title: string }>(text("case_1", "Phishing", ["a"]));
    expect(records.size()).toEqual({ records: 0, chars: 0 });
    const first = records.record<{ title: string }>(text("case_1", "Phishing", ["a"]));
    expect(first).not.toBe(once);
    expect(records.size().records).toBe(1);
    expect(records.record(text("case_1", "Phishing", ["a"]))).toBe(first);
    expect(frozenWhole(first)).toBe(true);
    expect(storedJsonOf(first)).toBe(text("case_1", "Phishing", ["a"]));

    // A kept id's new text is kept at once (the id is known to be read again).
    const changed = records.record<{ title: string }>(text("case_1", "Phishing, confirmed", ["a"]));
    expect(changed).not.toBe(first);
    expect(changed.title).toBe("Phishing, confirmed");
    expect(records.record(text("case_1", "Phishing, confirmed", ["a"]))).toBe(changed);
    // The old text parses anew: only the newest text of an id is kept.
    expect(records.record(text("case_1", "Phishing", ["a"]))).not.toBe(first);
    expect(records.size().records).toBe(1);
  });

  it("a row that does not start with its id, or a very long one, is parsed every time and not kept", () => {
    const records = new ParsedRecords();
    const unnamed = JSON.stringify({ title: "no id first", id: "case_2" });
    for (let read = 0; read < 2; read++) records.record(unnamed);
    expect(records.record(unnamed)).not.toBe(records.record(unnamed));
    const long = text("case_3", "x".repeat(70_000));
    for (let read = 0; read < 2; read++) records.record(long);
    expect(records.record(long)).not.toBe(records.record(long));
    expect(records.record<{ title: string }>(long).title).toHaveLength(70_000);
    expect(records.size()).toEqual({ records: 0, chars: 0 });
  });

  it("keeps the kept texts within the bound, the oldest going first; a bound of 0 keeps none", () => {
    const one = text("case_0000", "t");
    const records = new ParsedRecords(one.length * 3);
    const twice = (i: number) => (records.record(text(`case_000${i}`, "t")), records.record(text(`case_000${i}`, "t")));
    const read = Array.from({ length: 5 }, (_, i) => twice(i));
    expect(records.size()).toEqual({ records: 3, chars: one.length * 3 });
    expect(records.record(text("case_0004", "t"))).toBe(read[4]);
    expect(records.record(text("case_0000", "t"))).not.toBe(read[0]);

    for (const bad of [Number.NaN, -1, Number.POSITIVE_INFINITY]) expect(() => new ParsedRecords(bad)).toThrow(/parsedRecordChars must be a finite number/);

    const none = new ParsedRecords(0);
    none.record(one);
    expect(none.record(one)).not.toBe(none.record(one));
    expect(none.size()).toEqual({ records: 0, chars: 0 });
  });

  it("whatever was read before, a record equals its text parsed, carries that text, and the bound holds", () => {
    const row = fc.record({ id: fc.constantFrom("case_a", "case_b", "case_c", "alert_a"), title: fc.string({ maxLength: 40 }), tags: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 400 }), (rows, bound) => {
        const records = new ParsedRecords(bound);
        for (const { id, title, tags } of rows) {
          const written = text(id, title, tags);
          const record = records.record(written);
          expect(record).toEqual(JSON.parse(written));
          expect(storedJsonOf(record)).toBe(written);
          expect(records.size().chars).toBeLessThanOrEqual(bound);
        }
      }),
    );
  });

  it("through a storage: a list after a change on another connection answers the change, and the same page again the same records", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const folder = mkdtempSync(join(tmpdir(), "casekit-parsed-"));
    const path = join(folder, "casekit.db");
    const storage = createSqliteStorage({ path });
    const other = createSqliteStorage({ path });
    try {
      await storage.migrate();
      const kit = createCaseKit({ storage, passwordHasher: fastPasswordHasher, config: { keyHashSecret: "s".repeat(32) } });
      const elsewhere = createCaseKit({ storage: other, passwordHasher: fastPasswordHasher, config: { keyHashSecret: "s".repeat(32) } });
      const init = await kit.setup.initOrganization({ organizationName: "Parsed", email: "parsed@example.com" });
      const principal = await kit.authenticateKey(init.apiKey);
      const created = await kit.cases.create(principal, { title: "First title", severity: 2 });
      await kit.cases.list(principal, { limit: 10 });
      const page = await kit.cases.list(principal, { limit: 10 });
      expect((await kit.cases.list(principal, { limit: 10 })).data[0]).toBe(page.data[0]);
      await elsewhere.cases.update(await elsewhere.authenticateKey(init.apiKey), created.id, { title: "Changed elsewhere" });
      const after = await kit.cases.list(principal, { limit: 10 });
      expect(after.data[0]).toMatchObject({ id: created.id, title: "Changed elsewhere" });
      expect(storedJsonOf(after.data[0]!)).toContain("Changed elsewhere");
    } finally {
      await other.close();
      await storage.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
