// WAL checkpoints in a background thread: the WAL stays small without any commit paying for it.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createCaseKit } from "../../core/index.js";
import type { Storage } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { createFixtures } from "../conformance/fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "casekit-ckpt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const walBytes = (file: string) => statSync(`${file}-wal`).size;

/** Writes about 7.5 MB of cases in 15 bursts with pauses between them; answers the WAL's largest size. */
async function writeBursts(storage: Storage, file: string): Promise<number> {
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, config: { keyHashSecret: "checkpoint-test-secret-0123456789abcdef" } });
  const { apiKey } = await kit.setup.initOrganization({ organizationName: `SOC ${Math.random()}`, email: `ops-${Math.random()}@ckpt.test` });
  const admin = await kit.authenticateKey(apiKey);
  // A case stores its description twice, in its column and in its record's text ("storedRecord"): 50 KB a case.
  const description = "x".repeat(25_000);
  let largest = 0;
  for (let burst = 0; burst < 15; burst++) {
    for (let i = 0; i < 10; i++) await kit.cases.create(admin, { title: `Case ${burst}.${i}`, severity: 2, description });
    await sleep(300);
    largest = Math.max(largest, walBytes(file));
  }
  return largest;
}

describe("SQLite WAL checkpoints", () => {
  it("run in the background: the main connection never checkpoints, yet the WAL stays small", async () => {
    const file = join(dir, "background.db");
    const storage = createSqliteStorage({ path: file });
    await storage.migrate();
    try {
      const largest = await writeBursts(storage, file);
      // Without any checkpoint the WAL would hold all ~7.5 MB (the control below); with the
      // background thread it restarts after each burst.
      expect(largest).toBeLessThan(3.5 * 1024 * 1024);
    } finally {
      await storage.close();
    }
    // The worker is gone and the file is whole: it reopens with every case.
    const reopened = new Database(file, { readonly: true });
    expect(reopened.prepare("SELECT count(*) AS n FROM cases").get()).toEqual({ n: 150 });
    reopened.close();
  }, 60_000);

  it("control: with the automatic checkpoint off and no background thread, the same writes grow the WAL past 5 MB", async () => {
    const file = join(dir, "control.db");
    const database = new Database(file);
    database.pragma("journal_mode = WAL");
    database.pragma("wal_autocheckpoint = 0");
    const storage = createSqliteStorage({ database });
    await storage.migrate();
    try {
      expect(await writeBursts(storage, file)).toBeGreaterThan(5 * 1024 * 1024);
    } finally {
      await storage.close();
      database.close();
    }
  }, 60_000);

  describe("under sustained writes with readers always active", () => {
    const limit = 1024 * 1024;

    /**
     * About 16 MB of cases in 32 bursts, while two outside connections take turns holding read
     * transactions (one is always open, each on an older snapshot than the last commit) and the
     * storage's own reads run too. Answers the WAL's largest size seen and its size at the end.
     */
    async function writeWithReaders(storage: Storage, file: string): Promise<{ largest: number; last: number }> {
      const f = createFixtures();
      const org = f.organization();
      await storage.transaction((tx) => tx.organizations.insert(org));
      const readers = [new Database(file, { readonly: true }), new Database(file, { readonly: true })];
      let writing = true;
      const hold = async (reader: Database.Database, offset: number) => {
        await sleep(offset);
        while (writing) {
          reader.prepare("BEGIN").run();
          reader.prepare("SELECT count(*) FROM cases").get();
          await sleep(60);
          reader.prepare("COMMIT").run();
          await storage.read((tx) => tx.cases.list(org.id, { maxTlp: 4 }, { limit: 5 }));
        }
      };
      const held = Promise.all(readers.map((reader, i) => hold(reader, i * 30)));
      // Stored twice (its column and its record's text): 50 KB a case, 500 KB a burst.
      const description = "x".repeat(25_000);
      let largest = 0;
      try {
        for (let burst = 0; burst < 32; burst++) {
          await storage.transaction(async (tx) => {
            for (let i = 0; i < 10; i++) await tx.cases.insert(f.caseRecord(org.id, { description }));
          });
          await sleep(60);
          largest = Math.max(largest, walBytes(file));
        }
      } finally {
        writing = false;
        await held;
        for (const reader of readers) reader.close();
      }
      await sleep(1000); // the checkpointer's next runs, with no reader left
      return { largest, last: walBytes(file) };
    }

    it("the WAL is truncated once past walLimitBytes and stays near that bound, not growing with what is written", async () => {
      const file = join(dir, "readers-background.db");
      const storage = createSqliteStorage({ path: file, walLimitBytes: limit });
      await storage.migrate();
      try {
        const { largest, last } = await writeWithReaders(storage, file);
        // The bound: the limit plus what a checkpoint interval or two write (~2 MB each here), far
        // below the 16 MB written.
        expect(largest).toBeLessThan(6 * limit);
        expect(last).toBeLessThanOrEqual(limit);
      } finally {
        await storage.close();
      }
      const reopened = new Database(file, { readonly: true });
      expect(reopened.prepare("SELECT count(*) AS n FROM cases").get()).toEqual({ n: 320 });
      reopened.close();
    }, 60_000);

    it("units that never stop coming (group-committed, no pause) still let the checkpointer truncate the WAL between two groups", async () => {
      const file = join(dir, "stream.db");
      const storage = createSqliteStorage({ path: file, walLimitBytes: limit });
      await storage.migrate();
      const f = createFixtures();
      const org = f.organization();
      await storage.transaction((tx) => tx.organizations.insert(org));
      const description = "x".repeat(20_000);
      const deadline = performance.now() + 4000;
      let units = 0;
      let slowest = 0;
      const sizes: number[] = [];
      const sampler = setInterval(() => sizes.push(walBytes(file)), 50);
      const writer = async () => {
        while (performance.now() < deadline) {
          const started = performance.now();
          await storage.transaction((tx) => tx.cases.insert(f.caseRecord(org.id, { description })));
          slowest = Math.max(slowest, performance.now() - started);
          units += 1;
        }
      };
      const reader = async () => {
        while (performance.now() < deadline) {
          await storage.read((tx) => tx.cases.list(org.id, { maxTlp: 4 }, { limit: 5 }));
          // A read settles in microtasks: without a turn this loop would hold the event loop.
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      try {
        await Promise.all([...Array.from({ length: 20 }, writer), reader(), reader()]);
      } finally {
        clearInterval(sampler);
        await storage.close();
      }
      // Units never paused, yet the WAL came back under the bound again and again: the checkpointer
      // got the writer between two groups each time it asked. Between two of its checks (250 ms)
      // the WAL grows with what is written meanwhile, far less than the whole. What was written is
      // what the file holds once closed (each case's description is in its stored record too).
      const written = statSync(file).size;
      expect(written).toBeGreaterThan(units * 20_000);
      const returns = sizes.filter((size, i) => i > 0 && size <= limit && sizes[i - 1]! > limit).length;
      expect(written).toBeGreaterThan(16 * limit);
      expect(returns).toBeGreaterThanOrEqual(2);
      expect(Math.max(...sizes)).toBeLessThan(written / 3);
      // No unit waited long behind a checkpoint: a second at most, on a loaded test machine.
      expect(slowest).toBeLessThan(1000);
    }, 60_000);

    it("control: PASSIVE checkpoints alone (the limit out of reach) let the WAL grow with the writes", async () => {
      const file = join(dir, "readers-control.db");
      const storage = createSqliteStorage({ path: file, walLimitBytes: 1024 * limit });
      await storage.migrate();
      try {
        expect((await writeWithReaders(storage, file)).largest).toBeGreaterThan(8 * limit);
      } finally {
        await storage.close();
      }
    }, 60_000);
  });
});
