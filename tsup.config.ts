import { defineConfig } from "tsup";

// One entry per public subpath (package.json "exports") plus the CLI. Dependencies stay external.
export default defineConfig({
  entry: {
    "core/index": "core/index.ts",
    "adapters/sqlite/index": "adapters/sqlite/index.ts",
    "adapters/postgres/index": "adapters/postgres/index.ts",
    "server/index": "server/index.ts",
    "server/frameworks/express": "server/frameworks/express.ts",
    "server/frameworks/hono": "server/frameworks/hono.ts",
    "server/frameworks/fastify": "server/frameworks/fastify.ts",
    "server/webhooks": "server/webhooks.ts",
    "adapters/copy/index": "adapters/copy/index.ts",
    "server/client/index": "server/client/index.ts",
    "conformance/index": "test/conformance/index.ts",
    "server/cli": "server/cli.ts",
  },
  format: ["esm"],
  target: "node20",
  // Declarations for every entry but the CLI, named like the code (the suite lives in test/).
  dts: {
    entry: {
      "core/index": "core/index.ts",
      "adapters/sqlite/index": "adapters/sqlite/index.ts",
      "adapters/postgres/index": "adapters/postgres/index.ts",
      "server/index": "server/index.ts",
      "server/frameworks/express": "server/frameworks/express.ts",
      "server/frameworks/hono": "server/frameworks/hono.ts",
      "server/frameworks/fastify": "server/frameworks/fastify.ts",
      "server/webhooks": "server/webhooks.ts",
      "adapters/copy/index": "adapters/copy/index.ts",
      "server/client/index": "server/client/index.ts",
      "conformance/index": "test/conformance/index.ts",
    },
  },
  sourcemap: true,
  clean: true,
  splitting: true,
});
