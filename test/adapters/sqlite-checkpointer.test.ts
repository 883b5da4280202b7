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

const dir = mkdtempSync(join(tmpdir(), "casekit-ckpt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const walBytes = (file: string) => statSync(`${file}-wal`).size;

/** Writes about 7.5 MB of cases in 15 bursts with pauses between them; answers the WAL's largest size. */
async function writeBursts(storage: Storage, file: string): Promise<number> {
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, config: { keyHashSecret: "checkpoint-test-secret-0123456789abcdef" } });
  const { apiKey } = await kit.setup.initOrganization({ organizationName: `SOC ${Math.random()}`, email: `ops-${Math.random()}@ckpt.test` });
  const admin = await kit.authenticateKey(apiKey);
  const description = "x".repeat(50_000);
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
});
