// Nothing runs at install time but the database drivers' native builds. An install script is code
// every consumer runs with their own rights on `npm i` (swagger-ui-dist's @scarf/scarf used one to
// report every install to a third party), so a new one anywhere in the production tree fails here.
// The tree is read from node_modules as Node resolves it: casekit's dependencies, what each of them
// installs (dependencies, optional dependencies, required peers), and the two driver peers.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("../..", import.meta.url).pathname;

interface Manifest {
  name: string;
  version: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The lifecycle scripts npm runs when a package is installed. */
const installPhases = ["preinstall", "install", "postinstall"];

/** The drivers may build native code; pg has no script today, and anything under it is its own. */
const drivers = ["better-sqlite3", "pg"];

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

/** Where Node finds `name` from a package in `from`: its own node_modules, then each parent's. */
function resolveFrom(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/** A package's install-time scripts, with npm's implicit `node-gyp rebuild` for a binding.gyp. */
function installScripts(dir: string, manifest: Manifest): string[] {
  const scripts = installPhases.filter((phase) => manifest.scripts?.[phase]).map((phase) => `${phase}: ${manifest.scripts![phase]}`);
  if (!manifest.scripts?.install && !manifest.scripts?.preinstall && existsSync(join(dir, "binding.gyp"))) scripts.push("install: node-gyp rebuild (binding.gyp)");
  return scripts;
}

interface Found {
  name: string;
  version: string;
  scripts: string[];
  /** The chain of names from casekit down to it. */
  via: string[];
}

/** Every package installed with `names`, each once (by folder). */
function walk(names: string[], from = root): Found[] {
  const seen = new Set<string>();
  const found: Found[] = [];
  const visit = (parent: string, name: string, optional: boolean, via: string[]) => {
    const dir = resolveFrom(parent, name);
    if (!dir) {
      if (optional) return;
      throw new Error(`${[...via, name].join(" > ")} is not installed: run npm install`);
    }
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifest = readManifest(dir);
    found.push({ name: manifest.name, version: manifest.version, scripts: installScripts(dir, manifest), via });
    const next = [...via, manifest.name];
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dir, dep, false, next);
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) visit(dir, dep, true, next);
    // npm installs peers that are not optional.
    for (const dep of Object.keys(manifest.peerDependencies ?? {})) {
      if (!manifest.peerDependenciesMeta?.[dep]?.optional) visit(dir, dep, false, next);
    }
  };
  for (const name of names) visit(from, name, false, ["casekit"]);
  return found;
}

const own = readManifest(root);

describe("install scripts in the production dependency tree", () => {
  it("casekit itself runs nothing at install time", () => {
    expect(installScripts(root, own)).toEqual([]);
  });

  it("no dependency of casekit, however deep, has one", () => {
    const tree = walk(Object.keys(own.dependencies ?? {}));
    // The walk really covers the tree (direct and transitive packages alike).
    expect(tree.map((p) => p.name)).toEqual(expect.arrayContaining(["h3", "zod", "pino", "sonic-boom"]));
    const offenders = tree.filter((p) => p.scripts.length);
    expect(offenders.map((p) => `${[...p.via, p.name].join(" > ")}@${p.version}: ${p.scripts.join("; ")}`)).toEqual([]);
  });

  it("among the driver peers only better-sqlite3 builds, and it is found (the check sees real scripts)", () => {
    for (const driver of drivers) expect(own.peerDependencies?.[driver], driver).toBeDefined();
    const withScripts = walk(drivers).filter((p) => p.scripts.length);
    // pg's whole tree is the driver's own business; better-sqlite3's helpers (prebuild-install…) run no script of their own.
    const pgTree = new Set(walk(["pg"]).map((p) => p.name));
    expect(withScripts.filter((p) => !pgTree.has(p.name)).map((p) => p.name)).toEqual(["better-sqlite3"]);
  });
});
