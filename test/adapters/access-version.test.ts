/**
 * The access version suite on SQLite: three storages on one database file, as three processes on
 * one host would open it (test/conformance/access-version-suite.ts says what it proves); and the
 * version read of the SQLite adapter, which neither waits for the readers nor sees their snapshots.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { Storage } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { describeAccessVersion } from "../conformance/access-version-suite.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { migratedFiles } from "../helpers/migrated-sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "casekit-access-"));
const migrated = migratedFiles(join(dir, "template.db"));
const open: { close(): unknown }[] = [];
let files = 0;

afterEach(async () => {
  for (const handle of open.splice(0)) await handle.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeAccessVersion("SQLite, three storages on one file", async () => {
  const path = join(dir, `db-${++files}.db`);
  await migrated(path);
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const raw = new Database(path);
  open.push(raw);
  return {
    clock,
    param: () => "?",
    async raw(sql, params) {
      const statement = raw.prepare(sql);
      if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
      statement.run(...params);
      return [];
    },
    async hosts() {
      return Promise.all(
        [10_000, 10_000, 0].map(async (accessCacheEntries) => {
          const storage: Storage = createSqliteStorage({ path });
          open.push(storage);
          await storage.migrate();
          return createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret }, accessCacheEntries });
        }),
      );
    },
  };
});

describe("SQLite: the version read", () => {
  it("answers a cached key while every reader is busy, and sees a change committed meanwhile", async () => {
    const path = join(dir, `db-${++files}.db`);
    await migrated(path);
    const clock = new ManualClock("2026-03-01T12:00:00.000Z");
    const [a, b] = await Promise.all(
      [0, 1].map(async () => {
        const storage = createSqliteStorage({ path, readers: 2 });
        open.push(storage);
        await storage.migrate();
        return createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } });
      }),
    );
    const init = await a!.setup.initOrganization({ organizationName: "Snapshot SOC", email: "admin@snapshot.test" });
    const admin = await a!.authenticateKey(init.apiKey);
    const key = await a!.keys.create(admin, { name: "held", scopes: ["cases:read"] });
    await b!.authenticateKey(key.key); // B caches the key

    // Both of B's readers open a snapshot now and keep it until released.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = [0, 1].map(() => b!.storage.read(async (tx) => (await tx.organizations.findById(init.organization.id), await gate)));
    try {
      await new Promise((resolve) => setImmediate(resolve));
      // An unchanged key is answered at once: its check queues behind no read unit.
      let answered = false;
      await Promise.race([b!.authenticateKey(key.key).then(() => (answered = true)), new Promise((resolve) => setTimeout(resolve, 200))]);
      expect(answered).toBe(true);

      await a!.keys.changeStatus(admin, key.id, "suspend");
      const next = b!.authenticateKey(key.key);
      release();
      await expect(next).rejects.toMatchObject({ code: "key_suspended" });
    } finally {
      release();
      await Promise.allSettled(held);
    }
  });
});
