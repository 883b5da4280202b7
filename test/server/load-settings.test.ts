// The settings that bound what one client's requests cost the deployment (issue 12, item 5).
import { describe, expect, it } from "vitest";
import { loadHostConfig } from "../../server/config.js";

const secret = { CASEKIT_KEY_HASH_SECRET: "x".repeat(32) };
const load = (env: Record<string, string> = {}) => loadHostConfig({ database: ":memory:" }, { ...secret, ...env });

describe("CASEKIT_BULK_MAX_ROWS", () => {
  it("defaults to 10 000, takes a whole number from 1 to 1 000 000, and stops the start otherwise", () => {
    expect(load().bulkMaxRows).toBe(10_000);
    expect(load({ CASEKIT_BULK_MAX_ROWS: "250" }).bulkMaxRows).toBe(250);
    for (const value of ["0", "-5", "1.5", "lots", "1000001"]) {
      expect(() => load({ CASEKIT_BULK_MAX_ROWS: value })).toThrow(/CASEKIT_BULK_MAX_ROWS/);
    }
  });
});

describe("CASEKIT_SQLITE_PARSED_RECORDS", () => {
  it("defaults to 8 Mi code units, takes 0 (none kept) up to 1 Gi, and stops the start otherwise", () => {
    expect(load().sqliteParsedRecordChars).toBe(8 * 1024 * 1024);
    expect(load({ CASEKIT_SQLITE_PARSED_RECORDS: "0" }).sqliteParsedRecordChars).toBe(0);
    for (const value of ["-1", "1.5", "lots", String(1024 ** 3 + 1)]) {
      expect(() => load({ CASEKIT_SQLITE_PARSED_RECORDS: value })).toThrow(/CASEKIT_SQLITE_PARSED_RECORDS/);
    }
  });
});

describe("CASEKIT_SQLITE_WAL_LIMIT", () => {
  it("defaults to 64 MiB, takes bytes from 1 MiB to 64 GiB, and stops the start otherwise", () => {
    expect(load().sqliteWalLimitBytes).toBe(64 * 1024 * 1024);
    expect(load({ CASEKIT_SQLITE_WAL_LIMIT: "2097152" }).sqliteWalLimitBytes).toBe(2 * 1024 * 1024);
    for (const value of ["0", "1048575", "2097152.5", "big", String(64 * 1024 ** 3 + 1)]) {
      expect(() => load({ CASEKIT_SQLITE_WAL_LIMIT: value })).toThrow(/CASEKIT_SQLITE_WAL_LIMIT/);
    }
  });
});
