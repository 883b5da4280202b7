import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchesFilters, webhookFiltersSchema } from "../../core/webhooks/filters.js";
import { backoffMs, nextStep, retryAfterMs } from "../../core/webhooks/schedule.js";
import { subscribedTo, webhookCreateSchema } from "../../core/webhooks/schema.js";

describe("subscription filters", () => {
  const alert = { severity: 3, source: "edr", tlp: 2, tags: [{ name: "phishing" }], customFields: { region: "eu" } };
  it.each([
    [{ severity: { gte: 3 } }, true],
    [{ severity: { gte: 4 } }, false],
    [{ source: ["edr", "siem"] }, true],
    [{ source: "siem" }, false],
    [{ tlp: { lte: 2 }, severity: 3 }, true],
    [{ tlp: { lt: 2 } }, false],
    [{ tags: "phishing" }, true],
    [{ "customFields.region": "eu" }, true],
    [{ "customFields.region": { ne: "eu" } }, false],
    [{ assigneeId: "user_x" }, false],
    [{ source: { gte: 1 } }, false],
    [{}, true],
  ])("%j matches: %s", (filters, expected) => {
    expect(matchesFilters(webhookFiltersSchema.parse(filters), alert)).toBe(expected);
  });

  it("refuses malformed filters", () => {
    for (const bad of [{ severity: {} }, { "1bad": 1 }, { severity: { gte: "3" } }, { severity: { between: [1, 2] } }]) {
      expect(webhookFiltersSchema.safeParse(bad).success).toBe(false);
    }
  });
});

describe("retry schedule", () => {
  const subscription = { maxRetries: 3, retryDelayMs: 1000 };
  const now = new Date("2026-03-01T12:00:00.000Z");

  it("backs off exponentially from retryDelayMs with jitter, capped at an hour", () => {
    expect(backoffMs(1000, 1, 0)).toBe(500);
    expect(backoffMs(1000, 1, 0.999)).toBe(1000);
    expect(backoffMs(1000, 3, 0)).toBe(2000);
    expect(backoffMs(1000, 30, 1)).toBe(3_600_000);
    fc.assert(fc.property(fc.integer({ min: 100, max: 600_000 }), fc.integer({ min: 1, max: 20 }), fc.double({ min: 0, max: 0.9999, noNaN: true }), (delay, attempt, r) => {
      const ms = backoffMs(delay, attempt, r);
      const full = Math.min(3_600_000, delay * 2 ** (attempt - 1));
      return ms >= full / 2 - 1 && ms <= full + 1;
    }));
  });

  it("reads Retry-After in seconds or as an HTTP date", () => {
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs("Sun, 01 Mar 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
    expect(retryAfterMs("999999999", now)).toBe(86_400_000);
  });

  it("delivers on 2xx, disables on 410, retries the rest until maxRetries + 1 attempts", () => {
    expect(nextStep({ status: 204, retryAfter: null }, 1, subscription, now, 0)).toEqual({ kind: "delivered" });
    expect(nextStep({ status: 410, retryAfter: null }, 1, subscription, now, 0)).toEqual({ kind: "gone" });
    expect(nextStep({ status: 500, retryAfter: null }, 1, subscription, now, 0)).toEqual({ kind: "retry", delayMs: 500 });
    expect(nextStep({ status: 302, retryAfter: null }, 2, subscription, now, 0)).toEqual({ kind: "retry", delayMs: 1000 });
    expect(nextStep({ error: "timeout" }, 3, subscription, now, 0)).toEqual({ kind: "retry", delayMs: 2000 });
    expect(nextStep({ status: 500, retryAfter: null }, 4, subscription, now, 0)).toEqual({ kind: "failed" });
  });

  it("honours Retry-After on 429 and 503 when it asks for longer, never shorter", () => {
    expect(nextStep({ status: 429, retryAfter: "60" }, 1, subscription, now, 0)).toEqual({ kind: "retry", delayMs: 60_000 });
    expect(nextStep({ status: 503, retryAfter: "0" }, 1, subscription, now, 0)).toEqual({ kind: "retry", delayMs: 500 });
    expect(nextStep({ status: 500, retryAfter: "60" }, 1, subscription, now, 0)).toEqual({ kind: "retry", delayMs: 500 });
  });
});

describe("subscription bodies", () => {
  const valid = { name: "SOAR", url: "https://soar.example.com/in", events: ["case.created", "alert.*"] };

  it("fills the documented defaults", () => {
    expect(webhookCreateSchema.parse(valid)).toEqual({
      ...valid, method: "POST", authType: "none", authConfig: {}, headers: {}, filters: {}, retryDelayMs: 1000, timeoutMs: 30_000, maxRetries: 3, tags: [], environment: "production",
    });
  });

  it.each([
    [{ events: [] }, "events"],
    [{ events: ["Case.Created"] }, "events"],
    [{ method: "GET" }, "method"],
    [{ timeoutMs: 31_000 }, "timeoutMs"],
    [{ timeoutMs: 999 }, "timeoutMs"],
    [{ maxRetries: 11 }, "maxRetries"],
    [{ retryDelayMs: 50 }, "retryDelayMs"],
    [{ headers: { Host: "evil" } }, "headers"],
    [{ headers: { "webhook-signature": "v1,x" } }, "headers"],
    [{ headers: { "X-Ok": "a\r\nInjected: 1" } }, "headers"],
    [{ headers: { "Bad Name": "x" } }, "headers"],
    [{ authType: "basic", authConfig: { token: "x" } }, "authConfig"],
    [{ authType: "bearer" }, "authConfig"],
    [{ authType: "none", authConfig: { token: "x" } }, "authConfig"],
    [{ organizationId: "org_x" }, ""],
  ])("refuses %j", (change, path) => {
    const result = webhookCreateSchema.safeParse({ ...valid, ...change });
    expect(result.success).toBe(false);
    if (!result.success && path) expect(result.error.issues.map((i) => i.path.join("."))).toContainEqual(expect.stringContaining(path));
  });

  it("accepts each authType with its own config", () => {
    expect(webhookCreateSchema.safeParse({ ...valid, authType: "basic", authConfig: { username: "u", password: "p" } }).success).toBe(true);
    expect(webhookCreateSchema.safeParse({ ...valid, authType: "bearer", authConfig: { token: "t" } }).success).toBe(true);
    expect(webhookCreateSchema.safeParse({ ...valid, authType: "header", authConfig: { name: "X-Key", value: "v" } }).success).toBe(true);
  });

  it("matches event names exactly, by resource wildcard, or with *", () => {
    expect(subscribedTo(["case.created"], "case.created")).toBe(true);
    expect(subscribedTo(["case.created"], "case.updated")).toBe(false);
    expect(subscribedTo(["alert.*"], "alert.deleted")).toBe(true);
    expect(subscribedTo(["alert.*"], "case.deleted")).toBe(false);
    expect(subscribedTo(["*"], "webhook.test")).toBe(true);
  });
});
