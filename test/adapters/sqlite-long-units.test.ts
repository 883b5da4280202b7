// Long units of work (`transaction(work, { long: true })`, the bulks) run on a writer connection
// in a worker thread on a WAL file (adapters/sqlite/long-units.ts): their statements and COMMIT
// leave the event loop free. The conformance suite runs every unit-of-work test with long units
// too (test/conformance/suite-units.ts); here is what only they have.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { LongUnitWriter } from "../../adapters/sqlite/long-units.js";
import { createFixtures } from "../conformance/fixtures.js";

const scratch = mkdtempSync(join(tmpdir(), "casekit-long-units-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
const freshFile = (): string => {
  const path = join(scratch, `db-${++files}.sqlite`);
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)");
  db.close();
  return path;
};

/** A statement that keeps SQLite busy for a while (tens of milliseconds). */
const slowCount = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) AS n FROM c";

/** Counts the event loop's turns while `work` runs. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    turns += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

describe("the long-unit writer", () => {
  it("runs a statement while the event loop keeps turning; the same statement on the main thread holds it", async () => {
    const path = freshFile();
    const writer = new LongUnitWriter({ path, pragmas: ["busy_timeout = 5000"], autocheckpoint: () => 0 });
    expect(await writer.ready()).toBe(true);
    let count: unknown;
    const offThread = await turnsDuring(() => writer.run(async (executor) => (count = await executor.all(slowCount, []))));
    expect(count).toEqual([{ n: 2_000_000 }]);
    const main = new Database(path);
    const onThread = await turnsDuring(async () => main.prepare(slowCount).all());
    main.close();
    await writer.close();
    // Off the thread the loop turned many times; on it, at most the one turn after the statement.
    expect(offThread).toBeGreaterThan(10);
    expect(onThread).toBeLessThanOrEqual(1);
  });

  it("commits what the unit wrote, rolls back a unit that throws, and gives SQLite's errors back as SqliteError with their code", async () => {
    const path = freshFile();
    const writer = new LongUnitWriter({ path, pragmas: [], autocheckpoint: () => 0 });
    await writer.ready();
    await writer.run(async (executor) => {
      expect(await executor.run("INSERT INTO t (v) VALUES (?), (?)", ["a", "b"])).toBe(2);
      expect(await executor.records("SELECT json_object('v', v) FROM t ORDER BY v", [])).toEqual([{ v: "a" }, { v: "b" }]);
    });
    const fault = new Error("halfway");
    await expect(
      writer.run(async (executor) => {
        await executor.run("INSERT INTO t (v) VALUES (?)", ["c"]);
        throw fault;
      }),
    ).rejects.toBe(fault);
    let unique: unknown;
    await writer.run(async (executor) => {
      // A failed statement is undone alone: the unit goes on and commits the rest.
      await executor.guarded("INSERT INTO t (v) VALUES (?)", ["a"]).catch((error: unknown) => (unique = error));
      await executor.run("INSERT INTO t (v) VALUES (?)", ["d"]);
    });
    expect(unique).toBeInstanceOf(Database.SqliteError);
    expect(unique).toMatchObject({ code: "SQLITE_CONSTRAINT_UNIQUE" });
    await writer.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT v FROM t ORDER BY v").pluck().all()).toEqual(["a", "b", "d"]);
    db.close();
  });

  it("a worker that stops in the middle of a unit keeps nothing of it: the unit rejects, and the writer is no longer ready", async () => {
    const path = freshFile();
    const writer = new LongUnitWriter({ path, pragmas: [], autocheckpoint: () => 0 });
    await writer.ready();
    const unit = writer.run(async (executor) => {
      await executor.run("INSERT INTO t (v) VALUES (?)", ["written before the stop"]);
      await writer.close();
      await executor.run("INSERT INTO t (v) VALUES (?)", ["after"]);
    });
    await expect(unit).rejects.toThrow(/not running|stopped/);
    expect(await writer.ready()).toBe(false);
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(0);
    db.close();
  });

  it("is not ready when its connection cannot open; a storage then runs long units on the main connection", async () => {
    const writer = new LongUnitWriter({ path: join(scratch, "missing", "db.sqlite"), pragmas: [], autocheckpoint: () => 0 });
    expect(await writer.ready()).toBe(false);
    await writer.close();
  });
});

describe("long units in the storage", () => {
  it.each(["worker", "inline"] as const)("a long unit on a database file (longUnits: %s) commits its writes whole, and a unit queued behind it sees them", async (longUnits) => {
    const path = join(scratch, `storage-${++files}.sqlite`);
    const storage = createSqliteStorage({ path, longUnits });
    await storage.migrate();
    const f = createFixtures();
    const org = f.organization();
    const records = Array.from({ length: 30 }, (_, i) => f.caseRecord(org.id, { number: i + 1 }));
    await storage.transaction((tx) => tx.organizations.insert(org));
    const long = storage.transaction(
      async (tx) => {
        for (const record of records) await tx.cases.insert(record);
        return "long";
      },
      { long: true },
    );
    const after = storage.transaction((tx) => tx.cases.list(org.id, { maxTlp: 4 }, { limit: 100 }));
    expect(await long).toBe("long");
    expect((await after).map((c) => c.id).sort()).toEqual(records.map((c) => c.id).sort());
    await storage.close();
  });

  it("an in-memory database runs long units as ordinary ones", async () => {
    const storage = createSqliteStorage({ path: ":memory:" });
    await storage.migrate();
    const org = createFixtures().organization();
    await storage.transaction((tx) => tx.organizations.insert(org), { long: true });
    expect(await storage.read((tx) => tx.organizations.findById(org.id))).toEqual(org);
    await storage.close();
  });
});
