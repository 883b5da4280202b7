import { defineConfig } from "vitest/config";
import SummaryReporter from "./test/summary-reporter.js";

/**
 * Two projects. `unit` is what a developer runs while working (`npm run test:unit`, seconds to a
 * couple of minutes): the core, the host in-process, SQLite in memory and on files. `integration`
 * needs more of the machine: PostgreSQL, child processes (the real `casekit serve`, crash and
 * cluster tests), Chromium, and the packed package. `npm test` runs both.
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
  "test/server/*process*.test.ts",
  "test/server/serve-*.test.ts",
  "test/server/fuzz.test.ts",
  "test/webhooks/crash.test.ts",
  "test/webhooks/postgres-hosts.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: ["default", new SummaryReporter()],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: integration } },
      { extends: true, test: { name: "integration", include: integration } },
    ],
  },
});
