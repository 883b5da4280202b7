import { defineConfig } from "drizzle-kit";

/**
 * `npm run db:generate` writes new migrations here; they ship with the package and run on start.
 *
 * After generating, remove the `"public".` that drizzle-kit puts before the table a foreign key
 * REFERENCES: casekit's tables are unqualified and resolve through `search_path`, so one database
 * can hold several isolated casekit schemas. test/conformance/postgres.test.ts fails while a
 * shipped migration names a schema.
 */
export default defineConfig({
  dialect: "postgresql",
  schema: "./adapters/postgres/schema.ts",
  out: "./adapters/postgres/migrations",
});
