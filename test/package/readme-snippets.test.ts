// Every snippet in README.md is run (test/helpers/readme-snippets.ts says how a block names its
// kind): the set-up command starts the real server the way a newcomer does, the shell and
// TypeScript snippets that follow it run against that server, self-contained modules run in an
// empty folder, the conformance snippet runs under vitest, excerpts are found in the files the
// tests run. Needs the built package (`npm test` builds first): snippets import `casekit/…`.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExcerptOf, readmeSnippetsOf } from "../helpers/readme-snippets.js";
import type { Snippet } from "../helpers/readme-snippets.js";
import { freePort } from "../helpers/serve-process.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";
import pg from "pg";

const root = fileURLToPath(new URL("../..", import.meta.url));
const snippets = readmeSnippetsOf(join(root, "README.md"));
/** Where snippet files are written: inside the package, so `casekit/…` resolves to the package itself. */
const runDir = join(root, ".readme-run");
/** The address the README's snippets name; replaced by the test server's. */
const readmeOrigin = "http://127.0.0.1:3000";
/** The SQLite file and PostgreSQL URL the README's operations snippets name. */
const readmeSqliteFile = "data/casekit.db";
const readmePostgresUrl = "postgres://casekit@db.internal/casekit";
const keyHashSecret = "readme-snippets-key-hash-secret-0123456789";
/** tsx by its file, so a snippet run from an empty folder still finds it. */
const tsx = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;

interface Server {
  origin: string;
  key: string;
  child: ChildProcess;
  output: () => string;
}

let server: Server | undefined;
let serverDir: string | undefined;
/** The folder the `install` snippet installed the packed package into. */
let consumerDir: string | undefined;

function tokens(snippet: Snippet): Record<string, string> {
  return Object.fromEntries((snippet.argument ?? "").split(/\s+/).filter(Boolean).map((t) => t.split(":") as [string, string]));
}

/** A module's code with the code of the module it goes on from (`after:NAME`) first. */
function moduleCode(snippet: Snippet): string {
  const after = tokens(snippet).after;
  if (!after) return snippet.code;
  const before = snippets.find((s) => s.kind === "module" && tokens(s).name === after);
  if (!before) throw new Error(`README line ${snippet.line}: no module snippet is named ${after}`);
  return `${moduleCode(before)}\n${snippet.code}`;
}

/** `install`: packs this package and runs the snippet in an empty folder, `casekit` meaning the tarball. */
function runInstall(snippet: Snippet) {
  consumerDir = mkdtempSync(join(tmpdir(), "casekit-readme-consumer-"));
  writeFileSync(join(consumerDir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  // --ignore-scripts: pack the dist/ the test command just built instead of building again.
  const pack = run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", consumerDir]);
  expect(pack.status, pack.all).toBe(0);
  const tarball = join(consumerDir, (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename);
  const script = snippet.code.split("\n").map((line) => (/^npm i /.test(line) ? line.replace(/ casekit(?= |$)/, ` ${tarball}`) : line)).join("\n");
  const result = run("bash", ["-euo", "pipefail", "-c", script], { cwd: consumerDir, env: { npm_config_audit: "false", npm_config_fund: "false" } });
  expect(result.status, result.all).toBe(0);
}

function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? root,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
    // The install snippet builds better-sqlite3 from source: about a minute on an idle 2-core machine.
    timeout: 540_000,
  });
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "", all: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

function scriptFile(snippet: Snippet, suffix: string, code: string): string {
  mkdirSync(runDir, { recursive: true });
  const file = join(runDir, `readme-line-${snippet.line}${suffix}`);
  writeFileSync(file, code);
  return file;
}

/** `setup`: `npm ci && <rest>`; `npm ci` is what CI ran before the tests, the rest runs here. */
async function startSetup(snippet: Snippet): Promise<Server> {
  const match = /^npm ci && (.+)$/s.exec(snippet.code.trim());
  if (!match) throw new Error(`README line ${snippet.line}: the set-up snippet must be "npm ci && …"`);
  serverDir = mkdtempSync(join(tmpdir(), "casekit-readme-"));
  const port = await freePort();
  const child = spawn("bash", ["-c", match[1]!], {
    cwd: root,
    detached: true,
    env: { ...process.env, CASEKIT_DATABASE: join(serverDir, "casekit.db"), CASEKIT_PORT: String(port), CASEKIT_HOST: "127.0.0.1", CASEKIT_LOG_LEVEL: "warn" },
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the set-up snippet exited ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the set-up snippet's server did not answer within 60 s:\n${output}`);
    const ready = await fetch(`${origin}/livez`).then((r) => r.ok, () => false);
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const key = /CASEKIT_KEY=(\S+)/.exec(output)?.[1] ?? /API key\s+(\S+)/.exec(output)?.[1];
  if (!key) throw new Error(`init printed no API key:\n${output}`);
  return { origin, key, child, output: () => output };
}

function againstServer(code: string): string {
  if (!server) throw new Error("a snippet needs the server, but the README has no set-up snippet before it");
  return code.replaceAll(readmeOrigin, server.origin);
}

/**
 * A shell snippet with the README's example places made real: the server's origin (above), the
 * CLI as this checkout runs it, `data/casekit.db` as a freshly initialised SQLite deployment of
 * its own (the server's file is in use), and the example PostgreSQL URL as the test server, in a
 * schema of its own (CASEKIT_SCHEMA) dropped afterwards.
 */
async function shellScript(code: string): Promise<{ script: string; env: Record<string, string>; cleanup: () => Promise<void> }> {
  let script = againstServer(code).replaceAll("npx casekit", `node ${join(root, "bin", "casekit.mjs")}`);
  const env: Record<string, string> = { CASEKIT_KEY: server!.key };
  const cleanups: (() => Promise<void>)[] = [];
  if (script.includes(readmeSqliteFile)) {
    const dir = mkdtempSync(join(tmpdir(), "casekit-readme-sqlite-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const database = join(dir, "casekit.db");
    const init = run(process.execPath, [join(root, "bin", "casekit.mjs"), "init", "--org", "README SOC", "--email", "readme@example.com", "--database", database, "--json"]);
    expect(init.status, init.all).toBe(0);
    script = script.replaceAll(readmeSqliteFile, database);
  }
  if (script.includes(readmePostgresUrl)) {
    expect(await postgresShouldRun("README snippets"), "PostgreSQL is unreachable").toBe(true);
    const schema = freshSchemaName("readme");
    env.CASEKIT_SCHEMA = schema;
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    });
    script = script.replaceAll(readmePostgresUrl, postgresUrl);
  }
  return { script, env, cleanup: async () => void (await Promise.all(cleanups.map((c) => c()))) };
}

/** A JSON answer that is a problem (RFC 9457) means the snippet failed though curl exited 0. */
function expectNoProblem(stdout: string) {
  let body: unknown;
  try {
    body = JSON.parse(stdout);
  } catch {
    return;
  }
  const status = (body as { status?: unknown } | null)?.status;
  expect(typeof status === "number" && status >= 400 ? body : "not a problem").toBe("not a problem");
}

/**
 * True for the package's own source (type-checked, built and loaded by every test) and test
 * files; any other file (an example) must be imported by a test file.
 */
function runByTests(path: string): boolean {
  if (/^(core|adapters|server)\//.test(path) || /\.test\.ts$/.test(path)) return true;
  const stem = path.replace(/\.(ts|js|mjs)$/, "");
  const files = readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  return files.some((f) => {
    const text = readFileSync(join(root, "test", f), "utf8");
    const fromHere = relative(join(root, "test", f, ".."), join(root, stem)).replaceAll("\\", "/");
    return text.includes(`"${fromHere}.js"`) || text.includes(`"${fromHere}"`) || text.includes(`/${stem}.js"`);
  });
}

beforeAll(async () => {
  const setup = snippets.find((s) => s.kind === "setup");
  if (setup) server = await startSetup(setup);
}, 90_000);

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    const exited = new Promise((resolve) => server!.child.once("exit", resolve));
    process.kill(-server.child.pid!, "SIGTERM");
    await exited;
  }
  if (serverDir) rmSync(serverDir, { recursive: true, force: true });
  if (consumerDir) rmSync(consumerDir, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
});

describe("README snippets", () => {
  it("has exactly one set-up command and one test command (the two a newcomer runs)", () => {
    expect(snippets.filter((s) => s.kind === "setup")).toHaveLength(1);
    expect(snippets.filter((s) => s.kind === "tests")).toHaveLength(1);
  });

  it.each(snippets.map((s) => [`line ${s.line}: ${s.kind}${s.argument ? ` ${s.argument}` : ""}`, s] as const))("%s", async (_name, snippet) => {
    switch (snippet.kind) {
      case "setup": {
        // Started in beforeAll; it must still be serving, with the key init printed.
        expect(server!.child.exitCode).toBeNull();
        const health = await fetch(`${server!.origin}/api/v1/health`, { headers: { authorization: `Bearer ${server!.key}` } });
        expect(health.status).toBe(200);
        return;
      }
      case "tests": {
        expect(snippet.code.trim()).toBe("npm ci && npm test");
        const ci = readFileSync(join(root, ".ci/run"), "utf8").split("\n").map((l) => l.trim());
        const install = ci.findIndex((l) => /^npm ci( |$)/.test(l));
        const tests = ci.indexOf("npm test");
        expect(install).toBeGreaterThanOrEqual(0);
        expect(tests).toBeGreaterThan(install);
        return;
      }
      case "shell": {
        const { script, env, cleanup } = await shellScript(snippet.code);
        try {
          const result = run("bash", ["-euo", "pipefail", "-c", script], { env });
          expect(result.status, result.all).toBe(0);
          expectNoProblem(result.stdout);
        } finally {
          await cleanup();
        }
        return;
      }
      case "client": {
        const file = scriptFile(snippet, ".ts", againstServer(snippet.code));
        const result = run(process.execPath, ["--import", tsx, file], { env: { CASEKIT_KEY: server!.key } });
        expect(result.status, result.all).toBe(0);
        return;
      }
      case "install": {
        runInstall(snippet);
        return;
      }
      case "module": {
        const inConsumer = tokens(snippet).in === "consumer";
        if (inConsumer && !consumerDir) throw new Error(`README line ${snippet.line}: in:consumer, but no install snippet ran before it`);
        const file = inConsumer ? join(consumerDir!, `readme-line-${snippet.line}.ts`) : scriptFile(snippet, ".ts", "");
        writeFileSync(file, moduleCode(snippet));
        // A snippet is a piece of a longer-lived program (storage stays open, as in a server): it
        // passes when its top level completes without a throw, and the process is ended then.
        const runner = `${file.replace(/\.ts$/, "")}.run.mjs`;
        writeFileSync(runner, `await import(${JSON.stringify(pathToFileURL(file).href)});\nprocess.exit(0);\n`);
        const cwd = mkdtempSync(join(tmpdir(), "casekit-readme-module-"));
        try {
          const result = run(process.execPath, ["--import", tsx, runner], { cwd, env: { CASEKIT_KEY_HASH_SECRET: keyHashSecret } });
          expect(result.status, result.all).toBe(0);
        } finally {
          rmSync(cwd, { recursive: true, force: true });
        }
        return;
      }
      case "vitest": {
        const file = scriptFile(snippet, ".test.ts", snippet.code);
        const config = scriptFile(snippet, ".vitest.config.mjs", `export default { test: { root: ${JSON.stringify(runDir)}, include: [${JSON.stringify(`readme-line-${snippet.line}.test.ts`)}] } };\n`);
        const args = [join(root, "node_modules/vitest/vitest.mjs"), "run", "--config", config, ...(snippet.argument ? ["-t", snippet.argument] : [])];
        const result = run(process.execPath, args, { env: { NO_COLOR: "1", FORCE_COLOR: "0" } });
        expect(result.status, result.all).toBe(0);
        expect(result.all).toMatch(/Tests\s+\d+ passed/);
        expect(existsSync(file)).toBe(true);
        return;
      }
      case "excerpt": {
        const path = snippet.argument;
        expect(path, "an excerpt names its file").toBeTruthy();
        const full = join(root, path!);
        expect(existsSync(full) && statSync(full).isFile(), `${path} exists`).toBe(true);
        expect(isExcerptOf(snippet.code, readFileSync(full, "utf8")), `README line ${snippet.line} is not found as written in ${path}`).toBe(true);
        expect(runByTests(path!), `${path} is imported by a test`).toBe(true);
        return;
      }
      case "json": {
        expect(() => JSON.parse(snippet.code)).not.toThrow();
        return;
      }
    }
  }, 600_000);
});
