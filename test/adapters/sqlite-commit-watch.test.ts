// The commit watch (adapters/sqlite/commit-watch.ts) says "nothing committed since the previous
// look" only when that is true: commits of another connection, of another process, and WAL resets
// are all seen; and anything it cannot read makes it say "may have changed". The access version
// read trusts its kept versions on that word alone (adapters/sqlite/access-version.ts).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { watchCommits } from "../../adapters/sqlite/commit-watch.js";
import { accessVersionReader } from "../../adapters/sqlite/access-version.js";
import type { CommitWatch } from "../../adapters/sqlite/commit-watch.js";

const scratch = mkdtempSync(join(tmpdir(), "casekit-commit-watch-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

function walFile(): { path: string; db: Database.Database } {
  const path = join(scratch, `db-${++files}.sqlite`);
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE organizations (id TEXT PRIMARY KEY, access_version INTEGER NOT NULL)");
  db.prepare("INSERT INTO organizations VALUES ('org_a', 1), ('org_b', 1)").run();
  return { path, db };
}

/** Runs SQL on the file from another process, as `casekit` commands do while a server runs. */
function inAnotherProcess(path: string, sql: string): void {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const script = `const D = require(${JSON.stringify(driver)}); const db = new D(${JSON.stringify(path)}); db.exec(${JSON.stringify(sql)}); db.close();`;
  const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  expect(result.status, result.stderr).toBe(0);
}

describe("the commit watch", () => {
  it("is unchanged between two looks with nothing committed, and changed after a commit of another connection or process", () => {
    const { path, db } = walFile();
    const watch = watchCommits(path);
    try {
      expect(watch.unchanged()).toBe(false); // nothing to compare with yet
      expect(watch.unchanged()).toBe(true);
      db.prepare("UPDATE organizations SET access_version = 2 WHERE id = 'org_a'").run();
      expect(watch.unchanged()).toBe(false);
      expect(watch.unchanged()).toBe(true);
      inAnotherProcess(path, "UPDATE organizations SET access_version = 3 WHERE id = 'org_a'");
      expect(watch.unchanged()).toBe(false);
      expect(watch.unchanged()).toBe(true);
      // A transaction that writes nothing commits nothing.
      db.exec("BEGIN IMMEDIATE; COMMIT");
      expect(watch.unchanged()).toBe(true);
    } finally {
      watch.close();
      db.close();
    }
  });

  it("sees a commit that follows a checkpoint that reset the WAL", () => {
    const { path, db } = walFile();
    const watch = watchCommits(path);
    try {
      watch.unchanged();
      db.pragma("wal_checkpoint(TRUNCATE)");
      watch.unchanged();
      db.prepare("UPDATE organizations SET access_version = 2 WHERE id = 'org_b'").run();
      expect(watch.unchanged()).toBe(false);
    } finally {
      watch.close();
      db.close();
    }
  });

  it("never says unchanged without an -shm to read: a file not in WAL mode, or none at all", () => {
    const path = join(scratch, `db-${++files}.sqlite`);
    const db = new Database(path);
    db.exec("CREATE TABLE t (x)");
    const watch = watchCommits(path);
    const missing = watchCommits(join(scratch, "no-such.sqlite"));
    try {
      for (let i = 0; i < 3; i++) {
        expect(watch.unchanged()).toBe(false);
        expect(missing.unchanged()).toBe(false);
      }
    } finally {
      watch.close();
      missing.close();
      db.close();
    }
  });

  it("never drops this process's SQLite locks on the file: another process stays locked out while our writer holds its transaction", () => {
    const { path, db } = walFile();
    const watch = watchCommits(path);
    expect(watch.unchanged()).toBe(false);
    db.exec("BEGIN IMMEDIATE");
    try {
      // Closing any descriptor of the -shm would drop every fcntl lock this process holds on it.
      watch.close();
      const another = watchCommits(path);
      another.unchanged();
      another.close();
      const driver = createRequire(import.meta.url).resolve("better-sqlite3");
      const script = `const D = require(${JSON.stringify(driver)}); const db = new D(${JSON.stringify(path)}); db.pragma("busy_timeout = 0"); try { db.exec("BEGIN IMMEDIATE; INSERT INTO organizations VALUES ('org_other', 1); COMMIT"); console.log("written"); } catch (error) { console.log(error.code); }`;
      const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
      expect(result.stdout.trim()).toBe("SQLITE_BUSY");
    } finally {
      db.exec("ROLLBACK");
      db.close();
    }
  });

  it("watches the file a database recreated at the same path has, and the file behind a symbolic link", () => {
    const first = walFile();
    const old = watchCommits(first.path);
    old.unchanged();
    first.db.close(); // the last connection: SQLite removes the -wal and -shm files
    expect(existsSync(`${first.path}-shm`)).toBe(false);
    rmSync(first.path);
    const db = new Database(first.path);
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE t (x)");
    const link = `${first.path}.link`;
    symlinkSync(first.path, link);
    const fresh = watchCommits(first.path);
    const viaLink = watchCommits(link);
    try {
      fresh.unchanged();
      viaLink.unchanged();
      expect(fresh.unchanged()).toBe(true);
      expect(viaLink.unchanged()).toBe(true);
      db.exec("INSERT INTO t VALUES (1)");
      expect(fresh.unchanged()).toBe(false);
      expect(viaLink.unchanged()).toBe(false);
    } finally {
      db.close();
    }
  });

  it("property: whenever it says unchanged, no connection committed since the previous look", () => {
    const { path, db } = walFile();
    const other = new Database(path);
    const watch = watchCommits(path);
    const step = fc.oneof(
      fc.constant({ kind: "look" as const }),
      fc.record({ kind: fc.constant("commit" as const), on: fc.constantFrom(0, 1), org: fc.constantFrom("org_a", "org_b") }),
      fc.record({ kind: fc.constant("empty" as const), on: fc.constantFrom(0, 1) }),
      fc.record({ kind: fc.constant("checkpoint" as const), mode: fc.constantFrom("PASSIVE", "RESTART", "TRUNCATE") }),
    );
    // One watch across every run, as a server keeps it: the first look has nothing to compare with.
    let committedSinceLook = true;
    try {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
          for (const s of steps) {
            if (s.kind === "look") {
              const unchanged = watch.unchanged();
              if (committedSinceLook) expect(unchanged).toBe(false);
              committedSinceLook = false;
            } else if (s.kind === "commit") {
              (s.on === 0 ? db : other).prepare("UPDATE organizations SET access_version = access_version + 1 WHERE id = ?").run(s.org);
              committedSinceLook = true;
            } else if (s.kind === "empty") {
              (s.on === 0 ? db : other).exec("BEGIN IMMEDIATE; COMMIT");
            } else {
              db.pragma(`wal_checkpoint(${s.mode})`);
            }
          }
        }),
        { numRuns: 200 },
      );
    } finally {
      watch.close();
      other.close();
      db.close();
    }
  });
});

describe("the access version read on a WAL file", () => {
  /** A fresh WAL file, its writer and a version reader on it (with `watch`, when given), closed after `work`. */
  async function withReader(work: (file: { path: string; db: Database.Database; reader: ReturnType<typeof accessVersionReader> }) => Promise<void>, watch?: (path: string) => CommitWatch): Promise<void> {
    const { path, db } = walFile();
    const watching = watch?.(path);
    const reader = accessVersionReader(db, path, watching);
    try {
      await work({ path, db, reader });
    } finally {
      reader.close();
      watching?.close();
      db.close();
    }
  }

  it("keeps versions between commits and reads again after any commit, another process's included", () =>
    withReader(async ({ path, db, reader }) => {
      expect(await reader.read("org_a")).toBe(1);
      expect(await reader.read("org_a")).toBe(1);
      expect(await reader.read("org_missing")).toBe(null);
      inAnotherProcess(path, "UPDATE organizations SET access_version = 7 WHERE id = 'org_a'");
      expect(await reader.read("org_a")).toBe(7);
      db.prepare("UPDATE organizations SET access_version = 8 WHERE id = 'org_a'").run();
      expect(await reader.read("org_a")).toBe(8);
      db.prepare("INSERT INTO organizations VALUES ('org_missing', 1)").run();
      expect(await reader.read("org_missing")).toBe(1);
      expect(await reader.read("org_b")).toBe(1);
    }));

  it("looks once for all the reads asked for in one turn, and once more in the next turn", async () => {
    let looks = 0;
    const counting = (path: string): CommitWatch => {
      const real = watchCommits(path);
      return { unchanged: () => (looks++, real.unchanged()), close: () => real.close() };
    };
    await withReader(async ({ reader }) => {
      expect(await Promise.all(["org_a", "org_b", "org_a", "org_missing", "org_a"].map((id) => reader.read(id)))).toEqual([1, 1, 1, null, 1]);
      expect(looks).toBe(1);
      expect(await Promise.all([reader.read("org_a"), reader.read("org_b")])).toEqual([1, 1]);
      expect(looks).toBe(2);
    }, counting);
  });

  it("sees a commit made in the same turn after an earlier read was asked for: the look comes after every read it answers", () =>
    withReader(async ({ db, reader }) => {
      expect(await reader.read("org_a")).toBe(1); // kept, and the header marked
      const first = reader.read("org_a");
      // Committed after the first read was asked for and before the second: the second arrived
      // after the commit and must see it (a look taken when the first was asked would not).
      db.prepare("UPDATE organizations SET access_version = 2 WHERE id = 'org_a'").run();
      const second = reader.read("org_a");
      expect(await second).toBe(2);
      expect(await first).toBe(2);
    }));

  it("refuses a read still waiting for its look when the reader closes", () =>
    withReader(async ({ reader }) => {
      const pending = reader.read("org_a");
      reader.close();
      await expect(pending).rejects.toMatchObject({ code: "unavailable" });
    }));
});
