// The package's entry points as the three places that name them agree they are: package.json
// "exports" (what users import), tsup.config.ts (which source builds each dist file) and
// tsconfig.json "paths" (what examples and tests resolve `casekit/…` to without a build).
import { readFileSync } from "node:fs";
import tsup from "../../tsup.config.js";

const root = new URL("../../", import.meta.url);

export interface EntryPoint {
  /** `casekit`, `casekit/h3`… */
  specifier: string;
  /** The dist file users load, e.g. `./dist/server/index.js`. */
  code: string;
  /** Its declarations. */
  types: string;
  /** The source tsup builds it from, relative to the package root (`server/index.ts`). */
  source: string;
  /** The tsup entry name (the dist path without extension). */
  name: string;
}

const manifest = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as {
  exports: Record<string, string | { types: string; default: string }>;
};
const config = tsup as { entry: Record<string, string>; dts: { entry: Record<string, string> } };

export function entryPoints(): EntryPoint[] {
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    if (typeof target === "string") return [];
    const name = target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, "");
    const source = config.entry[name];
    if (source === undefined) throw new Error(`package.json exports ${subpath} (${target.default}), which no tsup entry builds`);
    return [{ specifier: subpath === "." ? "casekit" : `casekit/${subpath.slice(2)}`, code: target.default, types: target.types, source, name }];
  });
}

export const tsupConfig = config;

export const tsconfigPaths = (JSON.parse(readFileSync(new URL("tsconfig.json", root), "utf8")) as { compilerOptions: { paths: Record<string, string[]> } })
  .compilerOptions.paths;

/** The absolute path of a file of the package. */
export function packageFile(relative: string): string {
  return new URL(relative.replace(/^\.\//, ""), root).pathname;
}
