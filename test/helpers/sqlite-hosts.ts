/**
 * Three casekit instances on one SQLite file (three storages, as three processes on one host would
 * open it), for the suites that prove a cache's version is never stale across hosts (access,
 * definitions): the SQLite twin of postgres-hosts.ts. Registers its own cleanup: the storages and
 * the raw connection close after each test, the folder goes after all.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { CaseKit, CaseKitOptions } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { fastPasswordHasher } from "./fast-passwords.js";
import { keyHashSecret } from "./kit.js";
import { migratedFiles } from "./migrated-sqlite.js";
import type { SharedSchemaHosts } from "./postgres-hosts.js";

export interface SharedFile {
  /** A fresh migrated file for each test, and its hosts. */
  hosts(options: (host: number) => Partial<CaseKitOptions>): () => Promise<SharedSchemaHosts>;
  /** `count` kits on one fresh migrated file, each storage with `readers` readers. */
  kits(count: number, storageOptions?: { readers?: number }): Promise<CaseKit[]>;
}

export function sqliteSharedFile(prefix: string): SharedFile {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const migrated = migratedFiles(join(dir, "template.db"));
  const open: { close(): unknown }[] = [];
  let files = 0;
  afterEach(async () => {
    for (const handle of open.splice(0)) await handle.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function freshFile(): Promise<string> {
    const path = join(dir, `db-${++files}.db`);
    await migrated(path);
    return path;
  }

  /** Kits on `path`, opened and migrated one after another (each migrate takes the file's write lock). */
  async function kitsOn(path: string, clock: ManualClock, options: (host: number) => Partial<CaseKitOptions>, count: number, readers?: number): Promise<CaseKit[]> {
    const kits: CaseKit[] = [];
    for (let host = 0; host < count; host++) {
      const storage = createSqliteStorage(readers === undefined ? { path } : { path, readers });
      open.push(storage);
      await storage.migrate();
      kits.push(createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret }, ...options(host) }));
    }
    return kits;
  }

  return {
    hosts: (options) => async () => {
      const path = await freshFile();
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
        hosts: () => kitsOn(path, clock, options, 3),
      };
    },
    async kits(count, storageOptions = {}) {
      return kitsOn(await freshFile(), new ManualClock("2026-03-01T12:00:00.000Z"), () => ({}), count, storageOptions.readers);
    },
  };
}
