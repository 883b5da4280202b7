import { defineConfig } from "drizzle-kit";

/**
 * `npm run db:generate` writes new migrations here. They ship with the package
 * (package.json "files") and run on start (adapters/sqlite/migrate-file.ts, in drizzle's ledger).
 */
export default defineConfig({
  dialect: "sqlite",
  schema: "./adapters/sqlite/schema.ts",
  out: "./adapters/sqlite/migrations",
});
