// The published package: what `npm pack` ships, and what publint and are-the-types-wrong say of
// it. Reads the built dist/ (the test command builds before it runs vitest).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Sqlite from "../../adapters/sqlite/index.js";
import type * as Core from "../../core/index.js";
import type * as Host from "../../server/index.js";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;
const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as {
  exports: Record<string, string | { types: string; default: string }>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  dependencies: Record<string, string>;
};

let workDir: string;
let tarball: string;
let files: string[];

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "casekit-pack-"));
  // --ignore-scripts: pack the dist/ the test command just built instead of building again.
  const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", workDir], { cwd: root });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(workDir, packed!.filename);
  files = packed!.files.map((f) => f.path);
}, 60_000);

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("npm pack", () => {
  it("ships the code, types and migrations of every entry point", () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === "string") {
        expect(files, subpath).toContain(target.replace(/^\.\//, ""));
        continue;
      }
      expect(files, `${subpath} code`).toContain(target.default.replace(/^\.\//, ""));
      expect(files, `${subpath} types`).toContain(target.types.replace(/^\.\//, ""));
    }
    expect(files).toContain("bin/casekit.mjs");
    expect(files).toContain("LICENSE");
    expect(files.some((f) => /^adapters\/sqlite\/migrations\/\d{4}_.+\.sql$/.test(f))).toBe(true);
    expect(files.some((f) => /^adapters\/postgres\/migrations\/\d{4}_.+\.sql$/.test(f))).toBe(true);
  });

  it("ships no tests, benchmarks, examples, sources, data files or secrets", () => {
    const unwanted = files.filter(
      (f) =>
        /^(test|bench|examples|core|server|\.ci)\//.test(f) ||
        /\.(test|spec)\.[cm]?[jt]s$/.test(f) ||
        /\.(db|sqlite|sqlite3|db-wal|db-shm|tgz|log)$/.test(f) ||
        /(^|\/)\.env/.test(f) ||
        (f.startsWith("adapters/") && !/^adapters\/(sqlite|postgres)\/migrations\//.test(f)),
    );
    expect(unwanted).toEqual([]);
  });
});

describe("package checks", () => {
  it("casekit/conformance resolves to the built suite a third-party adapter runs", async () => {
    // A specifier TypeScript does not resolve, so type-checking never needs a built dist/ (the
    // test command type-checks while it builds); vitest resolves it at run time like any other.
    const entry: string = "casekit/conformance";
    const conformance = (await import(entry)) as Record<string, unknown>;
    expect(Object.keys(conformance)).toEqual(["describeStorage"]);
    expect(typeof conformance.describeStorage).toBe("function");
  });

  it("the built casekit/h3 serves the API reference page with its own script and stylesheet (no asset outside the code)", async () => {
    const [{ createCaseKit }, { createSqliteStorage }, { createCaseKitApp }] = (await Promise.all(
      ["casekit", "casekit/sqlite", "casekit/h3"].map((entry) => import(entry)),
    )) as [typeof Core, typeof Sqlite, typeof Host];
    const storage = createSqliteStorage({ path: ":memory:" });
    await storage.migrate();
    const app = createCaseKitApp(createCaseKit({ storage, config: { keyHashSecret: "package-test-secret-0123456789abcdef" } }));
    const page = await app.fetch(new Request("http://casekit.test/api/v1/docs"));
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(docs\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.map((a) => a.replace(/\?.*/, "")).sort()).toEqual(["docs/reference.css", "docs/reference.js"]);
    for (const asset of assets) {
      const answer = await app.fetch(new Request(`http://casekit.test/api/v1/${asset}`));
      expect(answer.status, asset).toBe(200);
      expect((await answer.text()).length, asset).toBeGreaterThan(1000);
    }
    await storage.close();
  });

  it("a CommonJS consumer can require() every entry point: the exports' `default` condition serves the ESM build to Node's require(esm) (Node >= 20.19)", async () => {
    const entries = Object.keys(manifest.exports).filter((subpath) => subpath !== "./package.json").map((subpath) => `casekit${subpath.slice(1)}`);
    const script = `const r = require("node:module").createRequire(process.cwd() + "/package.json");
      console.log(JSON.stringify(${JSON.stringify(entries)}.map((e) => [e, Object.keys(r(e)).length])));`;
    const { stdout } = await run(process.execPath, ["--no-warnings", "-e", script], { cwd: root });
    const loaded = JSON.parse(stdout) as [string, number][];
    expect(loaded.map(([entry]) => entry)).toEqual(entries);
    for (const [entry, count] of loaded) expect(count, entry).toBeGreaterThan(0);
  });

  it("publint reports nothing", async () => {
    const { messages, pkg } = await publint({ pkgDir: root, strict: true });
    expect(messages.map((m) => `${m.type}: ${formatMessage(m, pkg)}`)).toEqual([]);
  }, 60_000);

  it("are-the-types-wrong finds no problem in any entry point (ESM only)", async () => {
    const attw = join(root, "node_modules/.bin/attw");
    const answer = await run(attw, [tarball, "--profile", "esm-only", "--format", "json"], { cwd: root }).catch((error: { stdout: string }) => error);
    const report = JSON.parse(answer.stdout) as { problems: Record<string, { entrypoint: string; resolutionKind: string }[]> };
    // The esm-only profile leaves out CommonJS resolutions: the code is ESM only (Node >= 20.19),
    // which CommonJS reaches through require(esm) (tested above) though TypeScript's node16 CJS
    // resolution still calls it "dynamic import only".
    const ignored = new Set(["node10", "node16-cjs"]);
    const problems = Object.entries(report.problems).flatMap(([kind, found]) =>
      found.filter((p) => !ignored.has(p.resolutionKind)).map((p) => `${kind} ${p.entrypoint} (${p.resolutionKind})`),
    );
    expect(problems).toEqual([]);
  }, 120_000);

  it("casekit/express, casekit/hono and casekit/fastify load none of their framework's code but Hono's route helper; hono and fastify are optional peers", async () => {
    const loads = async (file: string) =>
      [...(await readFile(join(root, file), "utf8")).matchAll(/^import [^;]*?"([^"./][^"]*)";/gm)].map((m) => m[1]!).filter((from) => /^(express|hono|fastify)(\/|$)/.test(from));
    expect(await loads("dist/server/frameworks/express.js")).toEqual([]);
    expect(await loads("dist/server/frameworks/fastify.js")).toEqual([]);
    expect(await loads("dist/server/frameworks/hono.js")).toEqual(["hono/route"]);
    for (const framework of ["hono", "fastify"]) {
      expect(manifest.dependencies[framework], framework).toBeUndefined();
      expect(manifest.peerDependenciesMeta[framework]?.optional, framework).toBe(true);
    }
    expect(manifest.dependencies.express).toBeUndefined();
    expect(manifest.peerDependencies.express).toBeUndefined();
  });

  it("drivers and the conformance suite's test libraries are optional peer dependencies, so a PostgreSQL-only embedder never builds better-sqlite3 nor installs vitest", () => {
    for (const driver of ["better-sqlite3", "pg", "vitest", "fast-check"]) {
      expect(manifest.dependencies[driver], driver).toBeUndefined();
      expect(manifest.peerDependencies[driver], driver).toBeDefined();
      expect(manifest.peerDependenciesMeta[driver]?.optional, driver).toBe(true);
    }
  });
});
