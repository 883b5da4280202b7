// The `casekit` command as users run it (node bin/casekit.mjs, the built package; `npm run build`
// first): help and version, what `init` tells a newcomer to run (run here as printed), private
// database files, backups into a missing folder, and `copy` refusing a file a server holds.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/serve-process.js";

const bin = fileURLToPath(new URL("../../bin/casekit.mjs", import.meta.url));
const version = (JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), "casekit-cli-"));
const mode = (path: string) => statSync(path).mode & 0o777;

function casekit(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let server: ChildProcess | undefined;
afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("help and version through the real bin", () => {
  it("casekit --version, casekit --help and casekit serve --help answer on stdout with exit 0; an unknown flag exits 1 naming it", () => {
    expect(casekit(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    const overview = casekit(["--help"]);
    expect(overview.code).toBe(0);
    expect(overview.stdout).toMatch(/^ {2}copy +move a SQLite deployment/m);
    const serve = casekit(["serve", "--help"]);
    expect(serve.code).toBe(0);
    expect(serve.stdout).toContain("CASEKIT_SHUTDOWN_TIMEOUT");
    expect(serve.stdout).toContain("Usage: casekit serve [--database <db>]");
    expect(casekit(["serve", "--prot", "80"])).toEqual({ code: 1, stdout: "", stderr: "casekit serve: unknown flag --prot; did you mean --port? (see casekit serve --help)\n" });
  });
});

describe("casekit migrate on SQLite", () => {
  it("says beforehand which migrations it applies (SQLite cannot report while it works), and nothing when none is pending", () => {
    const journal = JSON.parse(readFileSync(fileURLToPath(new URL("../../adapters/sqlite/migrations/meta/_journal.json", import.meta.url)), "utf8")) as { entries: { tag: string }[] };
    const database = join(dir, "migrate", "casekit.db");
    const first = casekit(["migrate", "--database", database]);
    expect(first).toEqual({
      code: 0,
      stdout: `Migrations applied to ${database}\n`,
      stderr: `casekit migrate: applying ${journal.entries.length} migrations to ${database} (${journal.entries.map((e) => e.tag).join(", ")}); on a large database this can take a while\n`,
    });
    expect(casekit(["migrate", "--database", database])).toEqual({ code: 0, stdout: `Migrations applied to ${database}\n`, stderr: "" });
    expect(mode(database)).toBe(0o600);
  });
});

describe("a first run as init prints it", () => {
  const database = join(dir, "fresh", "data", "casekit.db");
  let port: number;
  let printed: string;

  beforeAll(async () => {
    port = await freePort();
    const init = casekit(["init", "--org", "First SOC", "--email", "me@first.test", "--database", database], { CASEKIT_PORT: String(port) });
    expect(init.code, init.stderr).toBe(0);
    printed = init.stdout;
  });

  it("names the commands to run next with this run's database and port", () => {
    const key = /^API key {6}(\S+)$/m.exec(printed)![1]!;
    // Run from this checkout's bin (not from node_modules), init names it as typed from here.
    expect(printed).toContain(`node ${relative(process.cwd(), bin)} serve --database ${database}`);
    expect(printed).toContain(`export CASEKIT_KEY=${key}`);
    expect(printed).toContain(`curl -s http://127.0.0.1:${port}/api/v1/health -H "Authorization: Bearer $CASEKIT_KEY"`);
    expect(printed).toContain(`http://127.0.0.1:${port}/api/v1/docs`);
    expect(printed).toContain(`http://127.0.0.1:${port}/account/`);
  });

  it("the printed serve, export and curl work as printed, and the docs and account addresses answer", async () => {
    const serveLine = /^ +(node \S+ serve.*)$/m.exec(printed)![1]!;
    // Exactly as printed (exec: SIGTERM reaches it), with the port init was told about.
    server = spawn("sh", ["-c", `exec ${serveLine}`], { env: { ...process.env, CASEKIT_PORT: String(port) }, stdio: "ignore" });
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/livez`)).ok) break;
      } catch {
        // not yet listening
      }
      if (Date.now() > deadline) throw new Error("the printed serve command did not start");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const exportLine = /^ +(export CASEKIT_KEY=.*)$/m.exec(printed)![1]!;
    for (const curlLine of printed.match(/^ +curl .*$/gm)!) {
      const curl = spawnSync("sh", ["-c", `${exportLine}\n${curlLine.trim()} -o /dev/null -w '%{http_code}'`], { encoding: "utf8" });
      expect(curl.stdout, curlLine).toBe("200");
    }
    const docs = await fetch(/^ +(http:\/\/\S+\/api\/v1\/docs)$/m.exec(printed)![1]!);
    expect(docs.status).toBe(200);
    const account = await fetch(/^ +(http:\/\/\S+\/account\/)$/m.exec(printed)![1]!);
    expect(account.status).toBe(200);
    expect(account.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("created the database, its WAL files and its secret readable by their owner only, in a folder that is too", () => {
    for (const file of [database, `${database}-wal`, `${database}-shm`, `${database}.secret`]) expect(mode(file), file).toBe(0o600);
    expect(mode(join(dir, "fresh", "data"))).toBe(0o700);
    expect(mode(join(dir, "fresh"))).toBe(0o700);
  });

  it("backup --to a missing folder creates it (0700) and writes the copy and its secret 0600, while the server runs", () => {
    const to = join(dir, "backups", "nightly", "casekit.db");
    const result = casekit(["backup", "--database", database, "--to", to]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`created the folder ${join(dir, "backups", "nightly")}`);
    expect(mode(to)).toBe(0o600);
    expect(mode(`${to}.secret`)).toBe(0o600);
    expect(mode(join(dir, "backups", "nightly"))).toBe(0o700);
    expect(existsSync(`${to}-journal`)).toBe(false);
  });

  it("copy refuses the file while the server has it open, says how to stop it, and the server goes on", async () => {
    const result = casekit(["copy", "--from", database, "--to", "postgres://postgres@127.0.0.1:5432/test", "--schema", "never_created"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^casekit copy: .* is open in another process \(a running casekit serve or worker\?\): stop it first \(SIGTERM or Ctrl-C/);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
  });
});
