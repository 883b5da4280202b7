import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadHostConfig, parseRateLimits } from "../../server/config.js";

const secret = { CASEKIT_KEY_HASH_SECRET: "x".repeat(32) };

describe("rate-limit settings", () => {
  it("default to memory on SQLite, the shared table on PostgreSQL, and failing closed", () => {
    expect(loadHostConfig({ database: ":memory:" }, secret).rateLimits).toEqual({ deployment: {}, store: "memory", failureMode: "closed" });
    expect(loadHostConfig({ database: "postgres://db/casekit" }, secret).rateLimits.store).toBe("postgres");
  });

  it("read the deployment's figures inline or from a file", () => {
    expect(parseRateLimits('{"basic":{"perMinute":30},"unlimited":{"perMinute":600,"burst":20}}')).toEqual({
      basic: { perMinute: 30 },
      unlimited: { perMinute: 600, burst: 20 },
    });
    const file = join(mkdtempSync(join(tmpdir(), "casekit-limits-")), "limits.json");
    writeFileSync(file, '{"standard":{"perHour":5000}}');
    expect(parseRateLimits(`@${file}`)).toEqual({ standard: { perHour: 5000 } });
  });

  it("refuse unknown tiers, unknown fields, non-positive figures, bad JSON and bad enum values at start-up", () => {
    expect(() => parseRateLimits('{"gold":{"perMinute":1}}')).toThrow(/CASEKIT_RATE_LIMITS is not valid/);
    expect(() => parseRateLimits('{"basic":{"perSecond":1}}')).toThrow(/not valid/);
    expect(() => parseRateLimits('{"basic":{"burst":0}}')).toThrow(/not valid/);
    expect(() => parseRateLimits("{basic")).toThrow(/must be JSON/);
    expect(() => loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_RATE_LIMIT_STORE: "redis" })).toThrow(/CASEKIT_RATE_LIMIT_STORE/);
    expect(() => loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_RATE_LIMIT_FAILURE_MODE: "maybe" })).toThrow(/FAILURE_MODE/);
  });
});

describe("proxy setting", () => {
  it("trusts X-Forwarded-For only when CASEKIT_TRUST_PROXY=true, and refuses other values", () => {
    expect(loadHostConfig({ database: ":memory:" }, secret).trustProxy).toBe(false);
    expect(loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(() => loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_TRUST_PROXY: "yes" })).toThrow(/CASEKIT_TRUST_PROXY/);
  });
});

describe("metrics token", () => {
  it("is unset by default (or empty), taken as given, and refused at start-up when shorter than 16 characters or with spaces", () => {
    expect(loadHostConfig({ database: ":memory:" }, secret).metricsToken).toBeUndefined();
    expect(loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_METRICS_TOKEN: "" }).metricsToken).toBeUndefined();
    expect(loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_METRICS_TOKEN: "t".repeat(16) }).metricsToken).toBe("t".repeat(16));
    expect(() => loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_METRICS_TOKEN: "short" })).toThrow(/CASEKIT_METRICS_TOKEN/);
    expect(() => loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_METRICS_TOKEN: "with a space in the middle" })).toThrow(/CASEKIT_METRICS_TOKEN/);
  });
});

describe("OpenTelemetry switch", () => {
  it("is off by default, on with CASEKIT_OTEL=true, and refuses other values at start-up", () => {
    expect(loadHostConfig({ database: ":memory:" }, secret).otel).toBe(false);
    expect(loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_OTEL: "true" }).otel).toBe(true);
    expect(() => loadHostConfig({ database: ":memory:" }, { ...secret, CASEKIT_OTEL: "1" })).toThrow(/CASEKIT_OTEL must be one of true, false/);
  });
});
