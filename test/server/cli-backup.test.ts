// `casekit backup`: an online copy of a SQLite deployment that works on its own, keys included.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createCaseKit } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { main } from "../../server/cli.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

const dir = mkdtempSync(join(tmpdir(), "casekit-backup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const lines: string[] = [];
  const errors: string[] = [];
  return { out: { log: (line: string) => lines.push(line), error: (line: string) => errors.push(line) }, lines, errors };
}

async function openKit(database: string) {
  const storage = createSqliteStorage({ path: database });
  await storage.migrate();
  const keyHashSecret = readFileSync(`${database}.secret`, "utf8").trim();
  return { kit: createCaseKit({ passwordHasher: fastPasswordHasher, storage, config: { keyHashSecret } }), storage };
}

describe("casekit backup", () => {
  it("copies a database that another connection keeps writing to, with its key-hash secret, and the copy works alone", async () => {
    const database = join(dir, "live.db");
    const init = capture();
    expect(await main(["init", "--org", "Backup SOC", "--email", "ops@backup.test", "--database", database, "--json"], init.out)).toBe(0);
    const { apiKey } = JSON.parse(init.lines.at(-1)!) as { apiKey: string };

    // The server's connection stays open with the case in its WAL while the backup runs.
    const live = await openKit(database);
    const principal = await live.kit.authenticateKey(apiKey);
    const created = await live.kit.cases.create(principal, { title: "Written just before the backup", severity: 2 });

    const to = join(dir, "copy.db");
    const run = capture();
    expect(await main(["backup", "--database", database, "--to", to], run.out), run.errors.join("\n")).toBe(0);
    expect(run.lines.join("\n")).toContain(`${to}.secret`);
    expect(run.lines.join("\n")).not.toContain(readFileSync(`${database}.secret`, "utf8").trim());
    expect(statSync(`${to}.secret`).mode & 0o777).toBe(0o600);
    expect(statSync(to).mode & 0o777).toBe(0o600);
    await live.storage.close();

    const restored = await openKit(to);
    try {
      const again = await restored.kit.authenticateKey(apiKey);
      expect(await restored.kit.cases.get(again, created.id)).toMatchObject({ id: created.id, title: "Written just before the backup", number: 1 });
      expect((await restored.kit.cases.create(again, { title: "After restore", severity: 1 })).number).toBe(2);
    } finally {
      await restored.storage.close();
    }
  });

  it("shows its progress in pages on stderr once it has run a while, and stdout stays the result", async () => {
    const database = join(dir, "progress.db");
    expect(await main(["init", "--org", "Progress SOC", "--email", "ops@progress.test", "--database", database, "--json"], capture().out)).toBe(0);
    const run = capture();
    const to = join(dir, "progress-copy.db");
    expect(await main(["backup", "--database", database, "--to", to], run.out, { progress: { afterMs: 0, everyMs: 0 } })).toBe(0);
    expect(run.errors.length).toBeGreaterThan(0);
    expect(run.errors.at(-1)).toMatch(/^casekit backup: 100 % \((\d[\d ]*) of \1 pages\)$/);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toMatch(/^Backed up /);

    const quiet = capture();
    expect(await main(["backup", "--database", database, "--to", join(dir, "quiet-copy.db")], quiet.out)).toBe(0);
    expect(quiet.errors).toEqual([]);
  });

  it("refuses to overwrite a file, to back up PostgreSQL, or without --to, and says why", async () => {
    const database = join(dir, "other.db");
    expect(await main(["init", "--org", "Other SOC", "--email", "ops@other.test", "--database", database, "--json"], capture().out)).toBe(0);
    const existing = join(dir, "existing.db");
    writeFileSync(existing, "keep me");

    const cases: [string[], RegExp][] = [
      [["backup", "--database", database, "--to", existing], /exists already/],
      [["backup", "--database", database, "--to", database], /another file/],
      [["backup", "--database", "postgres://postgres@127.0.0.1:5432/test", "--to", join(dir, "pg.db")], /pg_dump/],
      [["backup", "--database", database], /--to <file> is required/],
      [["backup", "--database", join(dir, "missing.db"), "--to", join(dir, "m.db")], /no database/],
    ];
    for (const [argv, message] of cases) {
      const run = capture();
      expect(await main(argv, run.out), argv.join(" ")).toBe(1);
      expect(run.errors.join("\n")).toMatch(message);
      expect(run.errors.join("\n")).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(existing, "utf8")).toBe("keep me");
  });
});
