// `casekit copy` and `casekit migrate` against PostgreSQL, as users run them (the built bin): errors
// that say what to check, --schema carried through to serve, --json, and progress on stderr.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../server/cli.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";
import { freePort } from "../helpers/serve-process.js";

const run = await postgresShouldRun("cli-copy-process");
const bin = fileURLToPath(new URL("../../bin/casekit.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "casekit-copy-cli-"));
const source = join(dir, "casekit.db");
const limitedRole = `casekit_limited_${process.pid}`;
const schemas: string[] = [];
let admin: pg.Client;
let apiKey: string;

function casekit(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The test server's URL with another user or database. */
function urlWith(change: { user?: string; database?: string; port?: number }): string {
  const url = new URL(postgresUrl);
  if (change.user) url.username = change.user;
  if (change.database) url.pathname = `/${change.database}`;
  if (change.port) url.port = String(change.port);
  return url.toString();
}

function schema(prefix: string): string {
  const name = freshSchemaName(prefix);
  schemas.push(name);
  return name;
}

beforeAll(async () => {
  if (!run) return;
  admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`drop role if exists ${limitedRole}`);
  await admin.query(`create role ${limitedRole} login`);
  const init = casekit(["init", "--org", "Copy SOC", "--email", "ops@copy.test", "--database", source, "--json"]);
  expect(init.code, init.stderr).toBe(0);
  apiKey = (JSON.parse(init.stdout) as { apiKey: string }).apiKey;
});

afterAll(async () => {
  if (run) {
    for (const name of schemas) await admin.query(`drop schema if exists "${name}" cascade`);
    await admin.query(`drop role if exists ${limitedRole}`);
    await admin.end();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!run)("casekit copy: connection and permission errors say what to check", () => {
  it("nothing listening on the port", async () => {
    const port = await freePort();
    const result = casekit(["copy", "--from", source, "--to", urlWith({ port })]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`casekit copy: nothing answers at 127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}): is PostgreSQL running there, and are the host and port in the database URL right?\n`);
  });

  it("a login PostgreSQL refuses (here: a role that does not exist)", () => {
    const result = casekit(["copy", "--from", source, "--to", urlWith({ user: "casekit_no_such_role" })]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^casekit copy: PostgreSQL refused the login: role "casekit_no_such_role" does not exist\. Check the user name and password in the database URL, and that pg_hba\.conf admits/);
  });

  it("a database that does not exist", () => {
    const result = casekit(["copy", "--from", source, "--to", urlWith({ database: "casekit_no_such_database" })]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^casekit copy: database "casekit_no_such_database" does not exist: create it \(createdb <name>/);
  });

  it("a user without the right to create the schema, with the GRANT that gives it; nothing is created", async () => {
    const target = schema("cli_denied");
    const result = casekit(["copy", "--from", source, "--to", urlWith({ user: limitedRole }), "--schema", target]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^casekit copy: permission denied for database \w+: the URL's user lacks a right casekit needs\..*GRANT CREATE ON DATABASE/);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect((await admin.query("select 1 from information_schema.schemata where schema_name = $1", [target])).rowCount).toBe(0);
  });

  it("a password in the URL is never printed", () => {
    const result = casekit(["copy", "--from", source, "--to", urlWith({ user: "casekit_no_such_role" }).replace("casekit_no_such_role@", "casekit_no_such_role:hunter2secret@")]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain("hunter2secret");
  });
});

describe.skipIf(!run)("casekit copy --schema, then the hosts on that schema", () => {
  it("--json prints the tables on one line and no progress; migrate and serve take the same --schema and the copied key works", async () => {
    const target = schema("cli_copy");
    const copied = casekit(["copy", "--from", source, "--to", postgresUrl, "--schema", target, "--json"]);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stderr).toBe("");
    const result = JSON.parse(copied.stdout) as { tables: { table: string; rows: number; derived: boolean }[]; secretFile: string };
    expect(result.tables.find((t) => t.table === "organizations")).toEqual({ table: "organizations", rows: 1, derived: false });
    expect(result.secretFile).toBe(`${source}.secret`);

    const secret = readFileSync(`${source}.secret`, "utf8").trim();
    const env = { CASEKIT_KEY_HASH_SECRET: secret, CASEKIT_DATABASE: postgresUrl, CASEKIT_SCHEMA: target, CASEKIT_LOG_LEVEL: "warn" };
    expect(casekit(["migrate"], env)).toMatchObject({ code: 0, stdout: `Migrations applied to ${postgresUrl}, schema ${target}\n` });

    const port = await freePort();
    const server = spawn(process.execPath, [bin, "serve", "--port", String(port)], { env: { ...process.env, ...env }, stdio: "ignore" });
    const exited = new Promise((resolve) => server.once("exit", resolve));
    try {
      const deadline = Date.now() + 20_000;
      let answer: Response | undefined;
      while (!answer) {
        try {
          answer = await fetch(`http://127.0.0.1:${port}/api/v1/health`, { headers: { authorization: `Bearer ${apiKey}` } });
        } catch {
          if (Date.now() > deadline) throw new Error("serve on the copied schema did not start");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      expect(answer.status).toBe(200);
    } finally {
      server.kill("SIGTERM");
      await exited;
    }
  }, 40_000);

  it("a --schema with a SQLite database is refused with what to do", () => {
    const result = casekit(["migrate", "--database", source, "--schema", "tenant_a"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--schema (CASEKIT_SCHEMA) names a PostgreSQL schema, but the database is the SQLite file");
  });
});

describe.skipIf(!run)("progress on standard error", () => {
  const capture = () => {
    const lines: string[] = [];
    const errors: string[] = [];
    return { lines, errors, out: { log: (line: string) => lines.push(line), error: (line: string) => errors.push(line) } };
  };

  it("copy shows rows per table once it has run a while; not with --json", async () => {
    const shown = capture();
    expect(await main(["copy", "--from", source, "--to", postgresUrl, "--schema", schema("cli_progress")], shown.out, { progress: { afterMs: 0, everyMs: 60_000 } })).toBe(0);
    expect(shown.errors).toContain("casekit copy: organizations 1 of 1 rows");
    expect(shown.errors).toContain("casekit copy: api_keys 1 of 1 rows");
    expect(shown.lines.join("\n")).toMatch(/organizations\s+1\b/);

    const quiet = capture();
    expect(await main(["copy", "--from", source, "--to", postgresUrl, "--schema", schema("cli_quiet"), "--json"], quiet.out, { progress: { afterMs: 0, everyMs: 0 } })).toBe(0);
    expect(quiet.errors).toEqual([]);
  });

  it("migrate says it is still working while a migration takes longer than the first lines' delay", async () => {
    const shown = capture();
    const env = { ...process.env };
    expect(await main(["migrate", "--database", postgresUrl, "--schema", schema("cli_migrate")], shown.out, { progress: { afterMs: 0, everyMs: 10 } })).toBe(0);
    expect(process.env).toEqual(env);
    expect(shown.errors.length).toBeGreaterThan(0);
    expect(shown.errors[0]).toMatch(/^casekit migrate: still applying migrations \(\d+ s\)$/);
  });
});
