import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMemoryRateLimitStore, decideRateLimit, effectiveLimits, tierLimits, unlimitedCeiling } from "../../core/index.js";
import type { LimitDecision, LimiterState, RateLimitStore, RateLimits } from "../../core/index.js";
import { addKey, addUser, makeTestKit } from "../helpers/kit.js";

const start = Date.parse("2026-03-01T12:00:00.000Z");

/** Feeds arrival times (epoch ms, ascending) through one limiter; returns every decision. */
function run(limits: RateLimits, times: number[]): LimitDecision[] {
  let state: LimiterState | null = null;
  return times.map((now) => {
    const result = decideRateLimit(limits, state, now);
    state = result.state;
    return result.decision;
  });
}

function checkHeaders(decisions: LimitDecision[]): void {
  let lastReset = 0;
  for (const d of decisions) {
    expect(d.remaining).toBeGreaterThanOrEqual(0);
    expect(d.resetAt).toBeGreaterThanOrEqual(lastReset);
    lastReset = d.resetAt;
    if (!d.allowed) expect(Math.ceil(d.retryAfterMs / 1000)).toBeGreaterThanOrEqual(1);
  }
}

describe.each(Object.entries(tierLimits))("the %s tier", (_tier, limits) => {
  it("admits `burst` back-to-back requests and refuses the next", () => {
    const decisions = run(limits, Array.from({ length: limits.burst + 1 }, () => start));
    expect(decisions.slice(0, limits.burst).every((d) => d.allowed)).toBe(true);
    const refused = decisions[limits.burst]!;
    expect(refused.allowed).toBe(false);
    expect(refused.window).toBe("minute");
    expect(refused.remaining).toBe(0);
    expect(refused.retryAfterMs).toBeCloseTo(60_000 / limits.perMinute, 6);
    checkHeaders(decisions);
  });

  it("never refuses a steady stream at exactly the per-minute limit for 10 minutes", () => {
    const interval = 60_000 / limits.perMinute;
    const decisions = run(limits, Array.from({ length: limits.perMinute * 10 }, (_, i) => start + i * interval));
    expect(decisions.filter((d) => !d.allowed)).toEqual([]);
    checkHeaders(decisions);
  });

  it("refuses on the hourly cap even while minute tokens remain", () => {
    const interval = 60_000 / limits.perMinute;
    const decisions = run(limits, Array.from({ length: limits.perHour + 1 }, (_, i) => start + i * interval));
    expect(decisions.slice(0, limits.perHour).every((d) => d.allowed)).toBe(true);
    const refused = decisions[limits.perHour]!;
    expect(refused.allowed).toBe(false);
    expect(refused.window).toBe("hour");
    expect(refused.limit).toBe(limits.perHour);
    // The minute limiter alone would have admitted it.
    expect(decideRateLimit({ ...limits, perHour: Infinity }, null, start).decision.allowed).toBe(true);
    checkHeaders(decisions);
  });
});

describe("the limiter's guarantees (property)", () => {
  const limits: RateLimits = { perMinute: 60, perHour: 300, burst: 10 };

  it("admits at most rate·L + burst in any window L, and at most perHour in any hour", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 20_000 })), { minLength: 1, maxLength: 1500 }),
        fc.constantFrom(1_000, 10_000, 60_000, 600_000),
        (gaps, windowMs) => {
          let t = start;
          const times = gaps.map((gap) => (t += gap));
          const decisions = run(limits, times);
          const admitted = times.filter((_, i) => decisions[i]!.allowed);
          checkHeaders(decisions);
          for (let i = 0, j = 0; i < admitted.length; i++) {
            while (admitted[i]! - admitted[j]! >= windowMs) j++;
            expect(i - j + 1).toBeLessThanOrEqual((limits.perMinute * windowMs) / 60_000 + limits.burst);
          }
          for (let i = 0, j = 0; i < admitted.length; i++) {
            while (admitted[i]! - admitted[j]! >= 3_600_000) j++;
            expect(i - j + 1).toBeLessThanOrEqual(limits.perHour);
          }
        },
      ),
      { numRuns: 200, seed: 5 },
    );
  });
});

describe("effective limits", () => {
  it("are the minimum of tier, deployment and organization, and never raised", () => {
    expect(effectiveLimits("basic")).toEqual(tierLimits.basic);
    expect(effectiveLimits("basic", { basic: { perMinute: 30 } }, { basic: { burst: 5, perHour: 5_000 } })).toEqual({ perMinute: 30, perHour: 1_000, burst: 5 });
    // `unlimited` is metered too (issue 12 item 14): the deployment's figures, else the ceiling.
    expect(effectiveLimits("unlimited")).toEqual(unlimitedCeiling);
    expect(effectiveLimits("unlimited", { unlimited: { perMinute: 10_000, perHour: 500_000, burst: 1_000 } })).toEqual({ perMinute: 10_000, perHour: 500_000, burst: 1_000 });
    expect(effectiveLimits("unlimited", {}, { unlimited: { perMinute: 100 } })).toEqual({ perMinute: 100, perHour: unlimitedCeiling.perHour, burst: 100 });
  });
});

describe("rate limiting through the kit", () => {
  it("limits each key on its own budget and lowers limits by organization policy", async () => {
    const t = await makeTestKit();
    const owner = await addUser(t.kit, t.organizationId);
    const one = await t.kit.authenticateKey((await addKey(t.kit, owner, { tier: "basic" })).secret);
    const two = await t.kit.authenticateKey((await addKey(t.kit, owner, { tier: "basic" })).secret);
    for (let i = 0; i < 10; i++) expect((await t.kit.limits.consume(one))!.allowed).toBe(true);
    expect((await t.kit.limits.consume(one))!.allowed).toBe(false);
    const other = (await t.kit.limits.consume(two))!;
    expect(other).toMatchObject({ allowed: true, remaining: 9, limit: 10 });

    await t.kit.organizations.updatePolicy(t.admin, { rateLimits: { basic: { burst: 5 } } });
    const three = await t.kit.authenticateKey((await addKey(t.kit, owner, { tier: "basic" })).secret);
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push((await t.kit.limits.consume(three))!.allowed);
    expect(decisions).toEqual([true, true, true, true, true, false]);
    // Unlimited tier, no deployment figures: metered by the documented ceiling.
    expect(await t.kit.limits.consume(t.admin)).toMatchObject({ allowed: true, limit: unlimitedCeiling.burst, remaining: unlimitedCeiling.burst - 1 });
  });

  it("counts failures per source address and refuses further failures once spent", async () => {
    const t = await makeTestKit();
    const failures = [];
    for (let i = 0; i < 6; i++) failures.push((await t.kit.limits.recordSourceFailure("203.0.113.5"))!.allowed);
    expect(failures).toEqual([true, true, true, true, true, false]);
    expect((await t.kit.limits.recordSourceFailure("203.0.113.6"))!.allowed).toBe(true);
    t.clock.advance(6_000);
    expect((await t.kit.limits.recordSourceFailure("203.0.113.5"))!.allowed).toBe(true);
  });

  it("fails closed when the store cannot be reached, or open when configured so", async () => {
    const broken = { update: async () => Promise.reject(new Error("down")), peek: async () => Promise.reject(new Error("down")) };
    const closed = await makeTestKit({ rateLimits: { store: broken } });
    const owner = await addUser(closed.kit, closed.organizationId);
    const key = await closed.kit.authenticateKey((await addKey(closed.kit, owner, { tier: "basic" })).secret);
    await expect(closed.kit.limits.consume(key)).rejects.toMatchObject({ code: "unavailable" });
    const open = await makeTestKit({ rateLimits: { store: broken, failureMode: "open" } });
    const owner2 = await addUser(open.kit, open.organizationId);
    const key2 = await open.kit.authenticateKey((await addKey(open.kit, owner2, { tier: "basic" })).secret);
    expect(await open.kit.limits.consume(key2)).toBeNull();
  });

  it("decides at once on the in-process store, as a promise on a store that waits, and fails as a promise either way", async () => {
    const keyOn = async (store: RateLimitStore, failureMode?: "open") => {
      const t = await makeTestKit({ rateLimits: { store, ...(failureMode ? { failureMode } : {}) } });
      const owner = await addUser(t.kit, t.organizationId);
      return { kit: t.kit, key: await t.kit.authenticateKey((await addKey(t.kit, owner, { tier: "basic" })).secret) };
    };
    // In process: the decision itself, no promise (server/auth.ts then awaits nothing).
    const inProcess = await keyOn(createMemoryRateLimitStore());
    const atOnce = inProcess.kit.limits.consume(inProcess.key);
    expect(atOnce).not.toBeInstanceOf(Promise);
    expect(atOnce).toMatchObject({ allowed: true, remaining: 9, limit: 10 });
    // A store without `updateNow` (a remote one): the same decisions, as promises.
    const memory = createMemoryRateLimitStore();
    const waiting = await keyOn({ update: (key, next) => memory.update(key, next), peek: (key) => memory.peek(key) });
    const later = waiting.kit.limits.consume(waiting.key);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toMatchObject({ allowed: true, remaining: 9, limit: 10 });
    // A store that fails at once still fails as a promise: closed refuses, open admits unmetered.
    const failing: RateLimitStore = { update: async () => Promise.reject(new Error("down")), updateNow: () => { throw new Error("down"); }, peek: async () => null };
    const closed = await keyOn(failing);
    const refused = closed.kit.limits.consume(closed.key);
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toMatchObject({ code: "unavailable" });
    const open = await keyOn(failing, "open");
    expect(await open.kit.limits.consume(open.key)).toBeNull();
  });

  it("the memory store sweeps states that no longer count", async () => {
    let now = start;
    const store = createMemoryRateLimitStore({ sweepEvery: 2, now: () => now });
    const limits: RateLimits = { perMinute: 60, perHour: 100, burst: 5 };
    const step = (key: string) => store.update(key, (s) => { const r = decideRateLimit(limits, s, now); return { state: r.state, result: r.decision }; });
    await step("a");
    now += 2 * 3_600_000;
    await step("b");
    expect(await store.peek("a")).toBeNull();
    expect(await store.peek("b")).not.toBeNull();
  });
});
