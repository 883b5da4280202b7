import { realpathSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";

/**
 * How the person at the terminal runs this CLI, for the commands it prints them to run next:
 * `npx casekit` where casekit is an installed package (its bin lives under node_modules), else
 * `node <path to bin/casekit.mjs>` as typed from here (a checkout, where npx finds no bin).
 */
export function invokedAs(script: string | undefined = process.argv[1], cwd: string = process.cwd()): string {
  if (!script) return "npx casekit";
  let path = script;
  try {
    path = realpathSync(script);
  } catch {
    // not on disk (an embedder calling main()): keep the name as given
  }
  if (path.split(sep).includes("node_modules")) return "npx casekit";
  const fromHere = relative(cwd, path);
  return `node ${fromHere && !fromHere.startsWith("..") && !isAbsolute(fromHere) ? fromHere : path}`;
}
