// The SQLite adapter's files are its owner's only (issue 15, item 4): a database it creates, the
// WAL files beside it and a backup are mode 0600. Folders are the host's to create.
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { backupSqliteFile, createSqliteStorage } from "../../adapters/sqlite/index.js";

const dir = mkdtempSync(join(tmpdir(), "casekit-private-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

describe("SQLite files", () => {
  it("a new database and its -wal and -shm are 0600; so is a backup of it", async () => {
    const file = join(dir, "new.db");
    const storage = createSqliteStorage({ path: file });
    try {
      await storage.migrate();
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path), path).toBe(0o600);
      const copy = join(dir, "copy.db");
      await backupSqliteFile(file, copy);
      expect(mode(copy)).toBe(0o600);
      expect(existsSync(`${copy}-journal`)).toBe(false);
    } finally {
      await storage.close();
    }
  });

  it("an existing file keeps the mode its owner gave it", async () => {
    const file = join(dir, "shared.db");
    new Database(file).close();
    chmodSync(file, 0o640);
    const storage = createSqliteStorage({ path: file });
    await storage.migrate();
    await storage.close();
    expect(mode(file)).toBe(0o640);
  });

  it("creates no folder: a database or a backup in a missing one fails and leaves nothing", async () => {
    expect(() => createSqliteStorage({ path: join(dir, "missing", "x.db") })).toThrow(/Cannot open database because the directory does not exist/);
    const file = join(dir, "source.db");
    const storage = createSqliteStorage({ path: file });
    await storage.migrate();
    await storage.close();
    await expect(backupSqliteFile(file, join(dir, "absent", "b.db"))).rejects.toThrow(/absent does not exist: create it first/);
    expect(existsSync(join(dir, "missing"))).toBe(false);
    expect(existsSync(join(dir, "absent"))).toBe(false);
  });
});
