/**
 * The bench's own processes (the bare h3 endpoint, the metering and header hosts, the floor's replay) run as
 * `casekit serve` runs: JavaScript built by tsup, not TypeScript through tsx. tsx compiles with
 * esbuild's `keepNames`, which wraps every function made at run time in a `__name(…)` call (an
 * `Object.defineProperty`): a closure made per request then costs a property definition per
 * request that the built package never pays. It showed up as 11 % of a metered request's CPU in a
 * profile of the metering host, and it would charge the metered key alone for it.
 */
import { join } from "node:path";
import { build } from "tsup";
import { packageRoot } from "./processes.js";

/** Each script, by the name the harness starts it by, and its source. */
const scripts = {
  "bare-h3": "bench/serve/bare-h3.ts",
  "metering-host": "bench/serve/metering-host.ts",
  "header-host": "bench/serve/header-host.ts",
  "floor-replay": "bench/serve/floor/replay.ts",
} as const;

export type BenchScript = keyof typeof scripts;

/**
 * Under node_modules so that the built files find the package's dependencies as the sources do;
 * `.mjs` because no package.json above them says `"type": "module"` (node_modules ends the search).
 */
const outDir = (): string => join(packageRoot, "node_modules", ".cache", "casekit-bench");

/** Builds every script (about a second); run once before any of them is started. */
export async function buildScripts(): Promise<void> {
  await build({
    config: false,
    entry: Object.fromEntries(Object.entries(scripts).map(([name, source]) => [name, join(packageRoot, source)])),
    outDir: outDir(),
    format: ["esm"],
    platform: "node",
    target: "node20",
    outExtension: () => ({ js: ".mjs" }),
    // The package's code is bundled (as dist/ bundles it); every package stays an import.
    skipNodeModulesBundle: true,
    esbuildOptions(options) {
      options.packages = "external";
    },
    dts: false,
    sourcemap: false,
    splitting: false,
    clean: true,
    silent: true,
  });
}

/** The built file of a script (buildScripts first). */
export function scriptPath(name: BenchScript): string {
  return join(outDir(), `${name}.mjs`);
}
