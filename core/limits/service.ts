import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { Organization } from "../organizations/types.js";
import type { RateLimitStore } from "../ports/rate-limit-store.js";
import { createMemoryRateLimitStore } from "../ports/rate-limit-store.js";
import type { LimitDecision } from "./limiter.js";
import { decide } from "./limiter.js";
import type { RateLimitOverrides, RateLimits } from "./tiers.js";
import { effectiveLimits } from "./tiers.js";

export interface RateLimitConfig {
  /** Where limiter state lives; in memory by default (one process). */
  store: RateLimitStore;
  /** The deployment's figures: lower any tier; give `unlimited` keys figures (none by default). */
  deployment: RateLimitOverrides;
  /** Failed sign-ins and invalid keys per source address: stricter than the basic tier. */
  sourceFailures: RateLimits;
  /**
   * When the store cannot be reached: "closed" refuses the request (503 unavailable), "open"
   * admits it unmetered. Closed by default: a security API should not run unmetered silently.
   */
  failureMode: "closed" | "open";
}

export const defaultSourceFailureLimits: RateLimits = { perMinute: 10, perHour: 100, burst: 5 };

/** Organization policies are read at most this often per organization and process. */
const policyCacheMs = 10_000;

/**
 * Rate limits, applied after authentication and before the handler: per key, by tier, lowered
 * by the deployment and then by the organization's policy. Every figure comes from the clock port.
 */
export function createRateLimiter(deps: CaseKitDeps, options: Partial<RateLimitConfig> = {}) {
  const config: RateLimitConfig = {
    store: options.store ?? createMemoryRateLimitStore({ now: () => deps.clock.now().getTime() }),
    deployment: options.deployment ?? {},
    sourceFailures: options.sourceFailures ?? defaultSourceFailureLimits,
    failureMode: options.failureMode ?? "closed",
  };
  const policies = new Map<string, { at: number; overrides: RateLimitOverrides }>();

  async function organizationOverrides(organizationId: string, now: number): Promise<RateLimitOverrides> {
    const cached = policies.get(organizationId);
    if (cached && now - cached.at < policyCacheMs) return cached.overrides;
    const organization: Organization | null = await deps.storage.read((tx) => tx.organizations.findById(organizationId));
    const overrides = organization?.policy.rateLimits ?? {};
    policies.set(organizationId, { at: now, overrides });
    return overrides;
  }

  async function consume(key: string, limits: RateLimits, now: number): Promise<LimitDecision | null> {
    try {
      return await config.store.update(key, (state) => {
        const { state: next, decision } = decide(limits, state, now);
        return { state: next, result: decision };
      });
    } catch (error) {
      if (config.failureMode === "open") return null;
      throw new CaseKitError("unavailable", "The rate-limit store cannot be reached", undefined, { cause: error });
    }
  }

  return {
    config,

    /**
     * Counts one request of the principal: per key, or per user for a host identity given a tier
     * (the host's users have no key to count by). Resolves with the decision (the host turns it
     * into headers, and a refusal into 429), or null when the caller is not limited at all.
     */
    async consume(principal: Principal): Promise<LimitDecision | null> {
      if (principal.tier === null) return null;
      const meter = principal.keyId !== null ? `key:${principal.keyId}` : principal.authenticatedBy === "host" ? `user:${principal.userId}` : null;
      if (meter === null) return null;
      const now = deps.clock.now().getTime();
      const limits = effectiveLimits(principal.tier, config.deployment, await organizationOverrides(principal.organizationId, now));
      if (limits === null) return null;
      return consume(meter, limits, now);
    },

    /** Whether a source address has used up its budget of failures (checked before authenticating). */
    async sourceBlocked(address: string): Promise<LimitDecision | null> {
      const now = deps.clock.now().getTime();
      try {
        const state = await config.store.peek(`source:${address}`);
        if (state === null) return null;
        const { decision } = decide(config.sourceFailures, state, now);
        return decision.allowed ? null : decision;
      } catch (error) {
        if (config.failureMode === "open") return null;
        throw new CaseKitError("unavailable", "The rate-limit store cannot be reached", undefined, { cause: error });
      }
    },

    /** Counts one failed sign-in or invalid key against the source address. */
    async recordSourceFailure(address: string): Promise<void> {
      await consume(`source:${address}`, config.sourceFailures, deps.clock.now().getTime());
    },

    /** Forget cached organization policies (after a policy change in this process). */
    forgetPolicy(organizationId: string): void {
      policies.delete(organizationId);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
