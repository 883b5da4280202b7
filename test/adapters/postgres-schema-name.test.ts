/**
 * The schema name is written into statements as a quoted identifier, so both PostgreSQL entry
 * points refuse one outside a-z, 0-9 and _ before anything connects (adapters/postgres/pools.ts).
 */
import { describe, expect, it } from "vitest";
import { createPostgresRateLimitStore, createPostgresStorage } from "../../adapters/postgres/index.js";

const url = "postgres://nobody@127.0.0.1:1/none";
const bad = ["Casekit", "1st", 'x"; drop table cases; --', "a-b", ""];

describe("PostgreSQL schema names", () => {
  it("are refused alike by the storage and the rate-limit store", () => {
    for (const schema of bad) {
      const message = `casekit: invalid schema name ${JSON.stringify(schema)}; use a-z, 0-9 and _, not starting with a digit`;
      expect(() => createPostgresStorage({ connectionString: url, schema }), schema).toThrow(message);
      expect(() => createPostgresRateLimitStore({ connectionString: url, schema }), schema).toThrow(message);
    }
  });

  it("are taken when they are lower-case identifiers", async () => {
    const storage = createPostgresStorage({ connectionString: url, schema: "casekit_2" });
    const store = createPostgresRateLimitStore({ connectionString: url, schema: "_casekit" });
    await Promise.all([storage.close(), store.close()]);
  });
});
