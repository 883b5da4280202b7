/**
 * Runs benchmarks by name (`npm run bench -- rate-limit`), or all of them. Benchmarks run on
 * demand, never in CI: figures depend on the machine, their ratios much less. A benchmark is a
 * file directly in bench/; a folder beside it (bench/serve/) holds that benchmark's parts.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const helpers = new Set(["run.ts", "measure.ts"]);
const available = readdirSync(here).filter((f) => f.endsWith(".ts") && !helpers.has(f)).map((f) => f.slice(0, -3));
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`Unknown benchmark(s): ${unknown.join(", ")}. Available: ${available.join(", ")}`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : available) await import(join(here, `${name}.ts`));
