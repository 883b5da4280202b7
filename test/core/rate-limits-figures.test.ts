// Issue 12 items 12 and 14: rate-limit figures keep an organization administrable (floors), every
// key is metered (`unlimited` too), and whatever the settings, the figures are whole numbers.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideRateLimit, effectiveLimits, keyTiers, rateLimitFloors, rateLimitOverridesSchema, unlimitedCeiling } from "../../core/index.js";
import type { KeyTier, LimiterState, RateLimitOverrides, RateLimits } from "../../core/index.js";
import { makeTestKit } from "../helpers/kit.js";

const start = Date.parse("2026-03-01T12:00:00.000Z");
const figures = ["perMinute", "perHour", "burst"] as const;

/** Any value a stored policy or a programmatic deployment might hold, sane or not. */
const anyFigure = fc.oneof(
  fc.integer({ min: -5, max: 3_000_000 }),
  fc.double({ min: -10, max: 1e7, noNaN: false }),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, 0, 0.5, undefined),
);
const anyOverrides: fc.Arbitrary<RateLimitOverrides> = fc.dictionary(
  fc.constantFrom(...keyTiers),
  fc.record({ perMinute: anyFigure, perHour: anyFigure, burst: anyFigure }, { requiredKeys: [] }),
) as fc.Arbitrary<RateLimitOverrides>;
/** What the schema admits: the deployment's figures (the kit refuses anything else at start). */
const validOverrides: fc.Arbitrary<RateLimitOverrides> = fc.dictionary(
  fc.constantFrom(...keyTiers),
  fc.record(
    {
      perMinute: fc.integer({ min: rateLimitFloors.perMinute, max: 1_000_000 }),
      perHour: fc.integer({ min: rateLimitFloors.perHour, max: 100_000_000 }),
      burst: fc.integer({ min: rateLimitFloors.burst, max: 100_000 }),
    },
    { requiredKeys: [] },
  ),
);

function expectWhole(limits: RateLimits): void {
  for (const name of figures) {
    expect(Number.isSafeInteger(limits[name]), `${name} = ${limits[name]}`).toBe(true);
    expect(limits[name]).toBeGreaterThanOrEqual(rateLimitFloors[name]);
  }
  expect(limits.burst).toBeLessThanOrEqual(limits.perMinute);
}

describe("effective limits (property)", () => {
  it("are whole numbers at or above the floors for every tier, whatever the deployment and stored policy say", () => {
    fc.assert(
      fc.property(fc.constantFrom(...keyTiers), validOverrides, anyOverrides, (tier: KeyTier, deployment, organization) => {
        expectWhole(effectiveLimits(tier, deployment, organization));
      }),
      { numRuns: 500, seed: 12 },
    );
  });

  it("give every decision whole header values: limit, remaining and the reset in seconds", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...keyTiers),
        validOverrides,
        anyOverrides,
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 120_000 }), cost: fc.integer({ min: 1, max: 2_000 }), force: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        (tier, deployment, organization, steps) => {
          const limits = effectiveLimits(tier, deployment, organization);
          let state: LimiterState | null = null;
          let now = start;
          for (const step of steps) {
            now += step.gap;
            const { state: next, decision } = decideRateLimit(limits, state, now, { cost: step.force ? step.cost : 1, force: step.force });
            state = next;
            for (const value of [decision.limit, decision.remaining, Math.ceil(decision.resetAt / 1000)]) {
              expect(Number.isSafeInteger(value) && value >= 0, `${JSON.stringify(decision)}`).toBe(true);
            }
            if (!decision.allowed) expect(decision.retryAfterMs).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 300, seed: 14 },
    );
  });

  it("meter `unlimited` by the deployment's figures, else the documented ceiling; an empty override changes nothing", () => {
    expect(effectiveLimits("unlimited")).toEqual(unlimitedCeiling);
    // The issue's `{"rateLimits":{"unlimited":{}}}`, which used to give `X-RateLimit-Limit: Infinity`.
    expect(effectiveLimits("unlimited", {}, { unlimited: {} })).toEqual(unlimitedCeiling);
    expect(effectiveLimits("unlimited", { unlimited: { perMinute: 100_000, perHour: 5_000_000, burst: 20_000 } })).toEqual({
      perMinute: 100_000,
      perHour: 5_000_000,
      burst: 20_000,
    });
    // A figure stored before the floors existed still cannot lock the admin out.
    expect(effectiveLimits("unlimited", {}, { unlimited: { perMinute: 1, perHour: 1, burst: 1 } })).toEqual(rateLimitFloors);
  });
});

describe("the floors", () => {
  it.each(keyTiers.flatMap((tier) => figures.map((figure) => [tier, figure] as const)))(
    "%s.%s below its floor is refused, at the floor accepted",
    (tier, figure) => {
      expect(rateLimitOverridesSchema.safeParse({ [tier]: { [figure]: rateLimitFloors[figure] - 1 } }).success).toBe(false);
      expect(rateLimitOverridesSchema.safeParse({ [tier]: { [figure]: rateLimitFloors[figure] } }).success).toBe(true);
      expect(rateLimitOverridesSchema.safeParse({ [tier]: { [figure]: rateLimitFloors[figure] + 0.5 } }).success).toBe(false);
    },
  );

  it("guard the organization policy: the issue's one-request-an-hour policy is 400, naming the floor", async () => {
    const t = await makeTestKit();
    const attempt = t.kit.organizations.updatePolicy(t.admin, { rateLimits: { unlimited: { perMinute: 1, perHour: 1 } } });
    await expect(attempt).rejects.toMatchObject({ code: "validation_failed" });
    const error = (await attempt.catch((e: unknown) => e)) as { errors: { path: string; message: string }[] };
    expect(error.errors.map((e) => e.path).sort()).toEqual(["rateLimits.unlimited.perHour", "rateLimits.unlimited.perMinute"]);
    expect(error.errors[0]!.message).toContain("at least");
    await expect(t.kit.organizations.updatePolicy(t.admin, { allowedTiers: [] })).rejects.toMatchObject({ code: "validation_failed" });
  });

  it("guard the deployment's figures when the kit is made", async () => {
    await expect(makeTestKit({ rateLimits: { deployment: { basic: { burst: 1 } } } })).rejects.toMatchObject({ code: "validation_failed" });
    await expect(makeTestKit({ rateLimits: { deployment: { unlimited: { perMinute: Infinity } } } })).rejects.toMatchObject({ code: "validation_failed" });
  });
});
