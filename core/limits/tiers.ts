import type { KeyTier } from "../keys/types.js";

/** Limits of one key: a burst-tolerant per-minute rate and an hourly cap. */
export interface RateLimits {
  perMinute: number;
  perHour: number;
  burst: number;
}

/** Spec section 5. `unlimited` is deployment-defined: see `unlimitedCeiling`. */
export const tierLimits: Record<Exclude<KeyTier, "unlimited">, RateLimits> = {
  basic: { perMinute: 60, perHour: 1_000, burst: 10 },
  standard: { perMinute: 300, perHour: 10_000, burst: 50 },
  professional: { perMinute: 1_000, perHour: 50_000, burst: 100 },
  enterprise: { perMinute: 5_000, perHour: 200_000, burst: 500 },
};

/**
 * The figures of `unlimited` keys when the deployment gives none: ten times `enterprise`. Every key
 * is metered, so every authenticated answer can state its limits (spec §8.2), and a leaked admin
 * key still cannot run unbounded.
 */
export const unlimitedCeiling: RateLimits = { perMinute: 50_000, perHour: 2_000_000, burst: 5_000 };

/**
 * No layer may set a figure below these: an organization that sets its own admin's tier to one
 * request an hour could never undo it. At the floor a key still gets 5 requests at once, 10 a
 * minute and 100 an hour: enough to read and fix the policy.
 */
export const rateLimitFloors: RateLimits = { perMinute: 10, perHour: 100, burst: 5 };

/**
 * Per tier, figures that replace the tier's defaults: the deployment's configuration and each
 * organization's policy take this shape (see `effectiveLimits` for who may raise what).
 */
export type RateLimitOverrides = Partial<Record<KeyTier, Partial<RateLimits>>>;

/**
 * The limits of a key of `tier`: its tier's figures (for `unlimited`, the deployment's figures,
 * else the ceiling), each lowered by the deployment (other tiers) and then by the organization's
 * policy, and never below the floors. The burst never exceeds the per-minute figure (lowering the
 * rate lowers the burst with it). Always whole, finite numbers (the headers state them), even for
 * figures stored before the floors existed.
 */
export function effectiveLimits(tier: KeyTier, deployment: RateLimitOverrides = {}, organization: RateLimitOverrides = {}): RateLimits {
  const base = tier === "unlimited" ? { ...unlimitedCeiling, ...defined(deployment.unlimited) } : lower(tierLimits[tier], deployment[tier]);
  const limits = lower(base, organization[tier]);
  const perMinute = whole(limits.perMinute, rateLimitFloors.perMinute);
  return {
    perMinute,
    perHour: whole(limits.perHour, rateLimitFloors.perHour),
    burst: Math.min(whole(limits.burst, rateLimitFloors.burst), perMinute),
  };
}

function lower(limits: RateLimits, override: Partial<RateLimits> | undefined): RateLimits {
  return {
    perMinute: Math.min(limits.perMinute, override?.perMinute ?? Infinity),
    perHour: Math.min(limits.perHour, override?.perHour ?? Infinity),
    burst: Math.min(limits.burst, override?.burst ?? Infinity),
  };
}

/** The override's figures that are set (an explicit `undefined` must not erase the ceiling's). */
function defined(override: Partial<RateLimits> | undefined): Partial<RateLimits> {
  return Object.fromEntries(Object.entries(override ?? {}).filter(([, value]) => value !== undefined));
}

/** A figure as the limiter may use it: a whole number, at least the floor (NaN counts as the floor). */
function whole(value: number, floor: number): number {
  if (!Number.isFinite(value)) return value === Infinity ? Number.MAX_SAFE_INTEGER : floor;
  return Math.max(floor, Math.floor(value));
}
