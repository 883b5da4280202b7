import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMemoryRateLimitStore, decideRateLimit } from "../../core/index.js";
import type { LimitDecision, LimiterState, RateLimits } from "../../core/index.js";
import { decideInPlace } from "../../core/limits/limiter.js";

/**
 * The in-process store's limiter changes a key's state in place (decideInPlace) instead of copying
 * it per request. It must decide exactly as the pure `decide` does, on any sequence of requests:
 * times that go forward, stand still, jump hours ahead or step back (a clock set back), costs,
 * forced charges, limits that change between requests.
 */
const limitsArbitrary: fc.Arbitrary<RateLimits> = fc.record({
  perMinute: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.constant(Infinity)),
  perHour: fc.oneof(fc.integer({ min: 1, max: 5_000 }), fc.constant(Infinity)),
  burst: fc.integer({ min: 1, max: 200 }),
});

const stepArbitrary = fc.record({
  // Milliseconds after the previous request: mostly small, some past a minute or the hour, some back.
  after: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 50_000, max: 4_000_000 }), fc.integer({ min: -120_000, max: 0 })),
  cost: fc.integer({ min: 1, max: 30 }),
  force: fc.boolean(),
  limits: fc.option(limitsArbitrary, { nil: undefined }),
});

describe("the rate limiter decided in place", () => {
  it("decides every request as the pure limiter does, and ends in the same state", () => {
    fc.assert(
      fc.property(limitsArbitrary, fc.array(stepArbitrary, { minLength: 1, maxLength: 120 }), (initial, steps) => {
        let limits = initial;
        let now = Date.parse("2026-03-01T12:00:00.000Z");
        let pure: LimiterState | null = null;
        let owned: LimiterState | null = null;
        for (const step of steps) {
          now += step.after;
          limits = step.limits ?? limits;
          const options = { cost: step.cost, force: step.force };
          const before = pure === null ? null : structuredClone(pure);
          const expected = decideRateLimit(limits, pure, now, options);
          // The pure limiter leaves the state it was given as it was.
          expect(pure).toEqual(before);
          const got = decideInPlace(limits, owned, now, options);
          if (owned !== null) expect(got.state).toBe(owned);
          expect(got.result).toEqual(expected.decision);
          expect(got.state).toEqual(expected.state);
          pure = expected.state;
          owned = got.state;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("is what the in-process store keeps, and a peek is a copy later requests leave alone", async () => {
    const store = createMemoryRateLimitStore();
    const limits: RateLimits = { perMinute: 60, perHour: 100, burst: 5 };
    const now = Date.parse("2026-03-01T12:00:00.000Z");
    const spend = (at: number): LimitDecision => store.updateNow!("key", (state) => decideInPlace(limits, state, at, { cost: 1 }));
    spend(now);
    const seen = await store.peek("key");
    const copy = structuredClone(seen);
    spend(now + 61_000);
    spend(now + 61_500);
    expect(seen).toEqual(copy);
    expect((await store.peek("key"))!.buckets).toEqual([
      [Math.floor(now / 60_000), 1],
      [Math.floor((now + 61_000) / 60_000), 2],
    ]);
  });
});
