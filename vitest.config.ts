import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import SummaryReporter from "./test/summary-reporter.js";

/**
 * `casekit`, `casekit/h3`, `casekit/express`… resolve to their sources, as tsconfig.json's `paths`
 * say (the one list; tsc and tsx read it, vitest does not, so it is turned into aliases here).
 * Examples import the package the way a user does, and run without a build. `casekit/conformance`
 * is left out on purpose: test/package imports it through the package's own exports, from the
 * built dist/, to prove the published suite loads.
 */
const tsconfig = JSON.parse(readFileSync(new URL("./tsconfig.json", import.meta.url), "utf8")) as {
  compilerOptions: { paths: Record<string, [string]> };
};
const packageAliases = Object.entries(tsconfig.compilerOptions.paths).map(([specifier, [source]]) => ({
  find: new RegExp(`^${specifier}$`), // exact: `casekit` must not catch `casekit/h3`
  replacement: fileURLToPath(new URL(source, import.meta.url)),
}));

/**
 * Two kinds of tests. `unit*` is what a developer runs while working (`npm run test:unit`, about
 * half a minute): the core, the host in-process, SQLite in memory and on files. `integration*`
 * needs more of the machine: PostgreSQL, child processes (the real `casekit serve`, crash and
 * cluster tests), Chromium, and the packed package. `npm test` runs both. Each kind is a main
 * project plus one for the few files that need a worker to themselves (see `isolated`, `alone`).
 */
const integration = [
  "test/conformance/postgres*.test.ts",
  "test/conformance/*-plans.test.ts",
  "test/conformance/*-migration.test.ts",
  "test/conformance/copy-sqlite-to-postgres.test.ts",
  "test/adapters/sqlite-checkpointer.test.ts",
  "test/adapters/sqlite-readers.test.ts",
  "test/adapters/declared-resource.test.ts",
  "test/conformance/declared-resources.test.ts",
  "test/conformance/declared-kinds.test.ts",
  "test/core/input-storage.test.ts",
  "test/examples/postgres-cluster.test.ts",
  "test/package/**/*.test.ts",
  "test/server/docs-browser.test.ts",
  "test/server/account-browser.test.ts",
  "test/server/*process*.test.ts",
  "test/server/serve-*.test.ts",
  "test/server/fuzz.test.ts",
  "test/webhooks/crash.test.ts",
  "test/webhooks/postgres-hosts.test.ts",
];

/**
 * Files share a worker and its loaded modules (`isolate: false`): importing the core, the host and
 * the adapters once per worker instead of once per file halves the unit project's CPU time.
 * test/helpers/shared-worker.ts fails any such file that leaves a global changed or a handle open.
 * The files below cannot help it and get a fresh worker each (project `unit-isolated`, part of
 * `npm run test:unit`): examples/hono.ts serves through @hono/node-server, which replaces
 * `globalThis.Request` and `Response` for the rest of the process.
 */
const isolated = ["test/examples/mounted.test.ts"];
/** Every project: stored records frozen whole (test/helpers/freeze-stored-records.ts). */
const setupFiles = ["test/helpers/freeze-stored-records.ts"];
const shared = { isolate: false, setupFiles: [...setupFiles, "test/helpers/shared-worker.ts"] };

/**
 * Files that run with no other file of ours beside them, after all the rest (project
 * `integration-alone`, part of `npm run test:integration`: one worker, isolated, which vitest
 * runs last and by itself). The background checkpointer's test pauses 300 ms between bursts of
 * writes and the checkpointer ticks every 250 ms: with other files writing and fsyncing beside it,
 * a checkpoint can miss a pause and the WAL passes its bound.
 */
const alone = ["test/adapters/sqlite-checkpointer.test.ts"];

export default defineConfig({
  resolve: { alias: packageAliases },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // vitest's default is one worker fewer than the cores (one worker on a 2-core CI machine). Much
    // of the integration project waits (on PostgreSQL, child processes, Chromium, timers), so one
    // worker more than the cores keeps them busy.
    maxWorkers: availableParallelism() + 1,
    reporters: ["default", new SummaryReporter()],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...integration, ...isolated], ...shared } },
      { extends: true, test: { name: "unit-isolated", include: isolated, setupFiles } },
      { extends: true, test: { name: "integration", include: integration, exclude: alone, ...shared } },
      { extends: true, test: { name: "integration-alone", include: alone, maxWorkers: 1, setupFiles } },
    ],
  },
});
