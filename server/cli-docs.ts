/**
 * Rewrites the README's generated CLI blocks ("The CLI" commands, "Configuration" settings) from
 * server/commands.ts and server/settings.ts:
 *
 *   npm run docs:cli
 *
 * test/server/cli-help.test.ts regenerates them and fails when README.md differs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withGeneratedBlocks } from "./cli-help.js";

export const readmeFile = fileURLToPath(new URL("../README.md", import.meta.url));

const before = readFileSync(readmeFile, "utf8");
const after = withGeneratedBlocks(before);
if (after !== before) writeFileSync(readmeFile, after);
console.log(after === before ? "README.md: CLI blocks already current" : "README.md: CLI blocks rewritten");
