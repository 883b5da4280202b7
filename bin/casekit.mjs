#!/usr/bin/env node
// The casekit command: runs the built CLI (npm install builds it through the "prepare" script).
import { existsSync } from "node:fs";

const cli = new URL("../dist/server/cli.js", import.meta.url);
if (!existsSync(cli)) {
  console.error("casekit is not built yet: run `npm install` (or `npm run build`) in the package folder first.");
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
