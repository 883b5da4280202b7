import type { KeyTier } from "../keys/types.js";

/** Limits of one key: a burst-tolerant per-minute rate and an hourly cap. */
export interface RateLimits {
  perMinute: number;
  perHour: number;
  burst: number;
}

/** Spec section 5. `unlimited` has no figures of its own: the deployment decides (possibly none). */
export const tierLimits: Record<Exclude<KeyTier, "unlimited">, RateLimits> = {
  basic: { perMinute: 60, perHour: 1_000, burst: 10 },
  standard: { perMinute: 300, perHour: 10_000, burst: 50 },
  professional: { perMinute: 1_000, perHour: 50_000, burst: 100 },
  enterprise: { perMinute: 5_000, perHour: 200_000, burst: 500 },
};

/**
 * Lowering only: each layer (deployment, then organization policy) may lower any figure of any
 * tier, never raise it. For `unlimited`, the deployment's figures are the ceiling; with none, the
 * key is not limited (though an organization may still set figures for its own keys).
 */
export type RateLimitOverrides = Partial<Record<KeyTier, Partial<RateLimits>>>;

export function effectiveLimits(tier: KeyTier, ...layers: (RateLimitOverrides | undefined)[]): RateLimits | null {
  let limits: RateLimits | null = tier === "unlimited" ? null : { ...tierLimits[tier] };
  for (const layer of layers) {
    const override = layer?.[tier];
    if (!override) continue;
    if (limits === null) {
      // The first layer to give unlimited keys figures defines them; missing ones stay unbounded.
      limits = { perMinute: Infinity, perHour: Infinity, burst: Infinity };
    }
    limits = {
      perMinute: Math.min(limits.perMinute, override.perMinute ?? Infinity),
      perHour: Math.min(limits.perHour, override.perHour ?? Infinity),
      burst: Math.min(limits.burst, override.burst ?? Infinity),
    };
  }
  if (limits && !Number.isFinite(limits.burst)) limits.burst = Number.isFinite(limits.perMinute) ? limits.perMinute : limits.burst;
  return limits;
}
