import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const postgresDir = new URL("../../adapters/postgres/", import.meta.url).pathname;

describe("the PostgreSQL adapter sends every statement through sendQuery", () => {
  // node-postgres's promise form kept several queries' rows reachable at every young-generation
  // collection (6–10 ms pauses, a 12 ms p99 for a 250-row page); adapters/postgres/send-query.ts
  // says what was measured. One statement sent the other way brings the pauses back.
  it("calls no client.query or pool.query outside send-query.ts", () => {
    const files = readdirSync(postgresDir).filter((name) => name.endsWith(".ts") && name !== "send-query.ts");
    expect(files.length).toBeGreaterThan(4);
    const offenders = files.filter((name) => /\.query\s*(<[^>]*>)?\s*\(/.test(readFileSync(join(postgresDir, name), "utf8")));
    expect(offenders).toEqual([]);
  });
});
