import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** How far up from the calling module the search goes: enough for dist/adapters/<dialect>/. */
const maxLevels = 3;

/**
 * The folder holding the shipped drizzle-kit migrations of `dialect` ("sqlite", "postgres"):
 * `<package>/adapters/<dialect>/migrations`, which stays put when the code is built.
 *
 * `from` is the module asking (defaults to this one). The folder is looked for as
 * `adapters/<dialect>/migrations` in that module's directory and up to three of its parents,
 * which covers every layout the package has:
 * - from source, `<pkg>/adapters/shared/migrations-folder.ts` → two levels up;
 * - built, inlined into `<pkg>/dist/adapters/<dialect>/index.js` → three levels up;
 * - built, in a shared chunk `<pkg>/dist/chunk-*.js` → one level up.
 * A folder counts only when it holds drizzle's `meta/_journal.json`. Throws, naming every place it
 * looked, when none does (e.g. when an application bundles casekit: pass the folder explicitly).
 */
export function resolveMigrationsFolder(dialect: string, from: string | URL = import.meta.url): string {
  if (!/^[a-z][a-z0-9_-]*$/.test(dialect)) throw new Error(`casekit: not a dialect name: ${JSON.stringify(dialect)}`);
  const modulePath = from instanceof URL || from.startsWith("file:") ? fileURLToPath(from) : from;
  const tried: string[] = [];
  let dir = dirname(modulePath);
  for (let level = 0; level <= maxLevels; level++) {
    const candidate = join(dir, "adapters", dialect, "migrations");
    tried.push(candidate);
    if (existsSync(join(candidate, "meta", "_journal.json"))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`casekit: cannot find the ${dialect} migrations; looked in ${tried.join(", ")}`);
}
