/**
 * The definitions version suite on SQLite: three storages on one database file, as three
 * processes on one host would open it (test/conformance/definitions-version-suite.ts says what it
 * proves).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { Storage } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { describeDefinitionsVersion } from "../conformance/definitions-version-suite.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { migratedFiles } from "../helpers/migrated-sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "casekit-definitions-"));
const migrated = migratedFiles(join(dir, "template.db"));
const open: { close(): unknown }[] = [];
let files = 0;

afterEach(async () => {
  for (const handle of open.splice(0)) await handle.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDefinitionsVersion("SQLite, three storages on one file", async () => {
  const path = join(dir, `db-${++files}.db`);
  await migrated(path);
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const raw = new Database(path);
  open.push(raw);
  return {
    param: () => "?",
    async raw(sql, params) {
      const statement = raw.prepare(sql);
      if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
      statement.run(...params);
      return [];
    },
    async hosts() {
      return Promise.all(
        [1_000, 1_000, 0].map(async (definitionsCacheEntries) => {
          const storage: Storage = createSqliteStorage({ path });
          open.push(storage);
          await storage.migrate();
          return createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret }, definitionsCacheEntries });
        }),
      );
    },
  };
});
