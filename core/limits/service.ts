import type { AccessCache } from "../access/access-cache.js";
import { rememberBounded } from "../bounded-map.js";
import { createAccessCache } from "../access/access-cache.js";
import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { RateLimitStore } from "../ports/rate-limit-store.js";
import { createMemoryRateLimitStore } from "../ports/rate-limit-store.js";
import { epochMs } from "../ports/clock.js";
import type { KeyTier } from "../keys/types.js";
import type { DecideOptions, LimitDecision, LimiterState } from "./limiter.js";
import { decide, decideInPlace } from "./limiter.js";
import { rateLimitOverridesSchema } from "./schema.js";
import type { RateLimitOverrides, RateLimits } from "./tiers.js";
import { effectiveLimits } from "./tiers.js";

export interface RateLimitConfig {
  /** Where limiter state lives; in memory by default (one process). */
  store: RateLimitStore;
  /**
   * The deployment's figures: lower any tier; set `unlimited` keys' figures (`unlimitedCeiling`
   * by default). Checked like a policy (whole numbers, at least the floors) when the kit is made.
   */
  deployment: RateLimitOverrides;
  /** Requests with bad API keys per source address: stricter than the basic tier. */
  sourceFailures: RateLimits;
  /**
   * When the store cannot be reached: "closed" refuses the request (503 unavailable), "open"
   * admits it unmetered. Closed by default: a security API should not run unmetered silently.
   */
  failureMode: "closed" | "open";
}

export const defaultSourceFailureLimits: RateLimits = { perMinute: 10, perHour: 100, burst: 5 };

/** The overrides of an organization without a rate-limit policy: one object, so its limits are computed once. */
const noOverrides: RateLimitOverrides = Object.freeze({});

/** Key ids whose meter names are kept at most. */
const maxKeyMeters = 10_000;

/** A metered caller: the name its budget is kept under, and its limits. */
interface Metered {
  meter: string;
  limits: RateLimits;
}

/**
 * A request's spend started before its key was confirmed (RateLimiter.spendEarly): the meter and
 * limits it was started for, and its decision to come.
 */
export interface EarlySpend {
  metered: Metered;
  decision: Promise<LimitDecision>;
}

/** What admitting one request spends: one object, not one per request. */
const oneUnit: DecideOptions = Object.freeze({ cost: 1 });

/** A bulk request costs one unit, plus one per this many rows it touched (matched: changed or skipped). */
export const rowsPerCostUnit = 100;

/** The units a bulk request's rows add to its one: ⌊rows / 100⌋. */
export function rowCost(rows: number): number {
  return Number.isFinite(rows) && rows > 0 ? Math.floor(rows / rowsPerCostUnit) : 0;
}

/**
 * Rate limits, applied after authentication and before the handler: per key, by tier, lowered
 * by the deployment and then by the organization's policy. Every figure comes from the clock port.
 * The policy comes from the access cache (core/access/access-cache.ts): the organization the key
 * was authenticated against in this request, so a policy change applies from the next request on.
 */
export function createRateLimiter(deps: CaseKitDeps, options: Partial<RateLimitConfig> = {}, access: AccessCache = createAccessCache(deps)) {
  const config: RateLimitConfig = {
    store: options.store ?? createMemoryRateLimitStore({ now: () => epochMs(deps.clock) }),
    deployment: checkedDeployment(options.deployment ?? {}),
    sourceFailures: options.sourceFailures ?? defaultSourceFailureLimits,
    failureMode: options.failureMode ?? "closed",
  };

  /**
   * effectiveLimits, computed once per policy object and tier: the access cache hands out the same
   * organization (and so the same policy object) until the organization's access version moves,
   * and a changed policy is a new object, so nothing here outlives a change.
   */
  const computed = new WeakMap<RateLimitOverrides, Map<KeyTier, RateLimits>>();
  function limitsOf(tier: KeyTier, overrides: RateLimitOverrides): RateLimits {
    let byTier = computed.get(overrides);
    if (byTier === undefined) computed.set(overrides, (byTier = new Map()));
    let limits = byTier.get(tier);
    if (limits === undefined) byTier.set(tier, (limits = effectiveLimits(tier, config.deployment, overrides)));
    return limits;
  }

  /**
   * One spend of `limits` at `now`: at once on a store in this process (updateNow), else a
   * promise. Never throws: a store that fails at once answers as a rejected promise, as a remote
   * store's failure would, so every caller handles one kind of failure.
   */
  function spend(key: string, limits: RateLimits, now: number, options: DecideOptions): LimitDecision | Promise<LimitDecision> {
    const store = config.store;
    try {
      if (store.updateNow !== undefined) return store.updateNow(key, (state) => decideInPlace(limits, state, now, options));
      return store.update(key, (state: LimiterState | null) => {
        const { state: after, decision } = decide(limits, state, now, options);
        return { state: after, result: decision };
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A store that cannot be reached: null (admitted unmetered) when the failure mode is open, else refused. */
  function unreachable(error: unknown): null {
    if (config.failureMode === "open") return null;
    throw new CaseKitError("unavailable", "The rate-limit store cannot be reached", undefined, { cause: error });
  }

  /** Spends one unit of `metered`'s budget (or takes the early spend made for it), failing as the failure mode says. */
  function admit(metered: Metered | null, early: EarlySpend | undefined): LimitDecision | null | Promise<LimitDecision | null> {
    if (metered === null) return null;
    // The early spend counts only when it went to this very meter with these very limits (the
    // limits are one object per tier and policy object, see limitsOf); otherwise it is spent again.
    const matches = early !== undefined && early.metered.meter === metered.meter && early.metered.limits === metered.limits;
    const decision = matches ? early.decision : spend(metered.meter, metered.limits, epochMs(deps.clock), oneUnit);
    return decision instanceof Promise ? decision.catch(unreachable) : decision;
  }

  /**
   * Each key's meter as last used: the same name string each time (the store's map does not hash
   * a new one per request) and the same object while the key's limits stay the same object.
   */
  const keyMeters = new Map<string, Metered>();
  function metered(principal: Principal, limits: RateLimits): Metered {
    const keyId = principal.keyId;
    if (keyId === null) return { meter: `user:${principal.userId}`, limits };
    const known = keyMeters.get(keyId);
    if (known !== undefined && known.limits === limits) return known;
    const fresh = { meter: known?.meter ?? `key:${keyId}`, limits };
    rememberBounded(keyMeters, keyId, fresh, maxKeyMeters);
    return fresh;
  }

  /**
   * What the principal is metered by, and its limits; null for a caller no limit applies to. At
   * once (no promise, no turn of the microtask queue) when the request's organization was vouched
   * for, as it is for every key: metering is paid on every request.
   */
  function meterOf(principal: Principal): Metered | null | Promise<Metered | null> {
    const tier = principal.tier;
    // A host identity given a tier is metered per user: the host's users have no key to count by.
    if (tier === null || (principal.keyId === null && principal.authenticatedBy !== "host")) return null;
    const vouched = access.vouchedFor(principal);
    if (vouched !== undefined) return metered(principal, limitsOf(tier, vouched.policy.rateLimits ?? noOverrides));
    return access.organization(principal.organizationId).then((organization) => metered(principal, limitsOf(tier, organization?.policy.rateLimits ?? noOverrides)));
  }

  return {
    config,

    /**
     * Admits (or refuses) one request of the principal: per key, or per user for a host identity
     * given a tier (the host's users have no key to count by). Every key is metered, `unlimited`
     * too. Gives the decision (the host turns it into headers, and a refusal into 429), or null
     * when the caller is not limited at all (an account-area session), or when the store is down
     * and the failure mode is open. At once (no promise) when the organization was vouched for in
     * this request and the store is in this process, as on every key's request to `casekit serve`:
     * metering is paid on every request, so it costs the decision and nothing around it. A store
     * that cannot be reached always answers as a rejected promise. `early` is what spendEarly
     * started for this request.
     */
    consume(principal: Principal, early?: EarlySpend): LimitDecision | null | Promise<LimitDecision | null> {
      const found = meterOf(principal);
      return found instanceof Promise ? found.then((metered) => admit(metered, early)) : admit(found, early);
    },

    /**
     * Starts `consume` for `candidate`, the principal a key's held access gives before the key
     * check has confirmed it, when the store is remote (its update waits on a database): the
     * request then waits for one round trip instead of two. Undefined when the store is in
     * process, or when the candidate is not metered at once. Hand the result to `consume` with the
     * checked principal: it is kept only for the same meter with the same limits, and spent again
     * otherwise, so a key whose limits just changed pays that one request twice. A key the check
     * then refuses has spent one unit of its own budget, and nothing else is decided on the
     * candidate.
     */
    spendEarly(candidate: Principal): EarlySpend | undefined {
      if (config.store.remote !== true) return undefined;
      const metered = meterOf(candidate);
      if (metered === null || metered instanceof Promise) return undefined;
      const decision = Promise.resolve(spend(metered.meter, metered.limits, epochMs(deps.clock), oneUnit));
      // Unused when the check fails or the meter differs: its failure is nobody's to hear.
      decision.catch(() => undefined);
      return { metered, decision };
    },

    /**
     * Charges a finished request for the rows it touched, `rowCost(rows)` units on top of the one
     * its admission spent, whether or not they fit: the work is done, and a budget spent this way
     * refuses the key's next requests until it recovers. Resolves with the decision after the
     * charge (for the answer's headers), or null when nothing was charged (few rows, no meter, or
     * a store that cannot be reached: a finished request's answer is never turned into an error).
     */
    async chargeRows(principal: Principal, rows: number): Promise<LimitDecision | null> {
      const cost = rowCost(rows);
      if (cost === 0) return null;
      const now = epochMs(deps.clock);
      const metered = await meterOf(principal);
      if (metered === null) return null;
      try {
        return await spend(metered.meter, metered.limits, now, { cost, force: true });
      } catch {
        return null;
      }
    },

    /**
     * Counts one request that presented a bad API key against its source address, and resolves
     * with the address's decision: refused once the address has spent its budget of failures. Only
     * failing requests are counted and refused, so a valid key is never refused because of what
     * other clients behind the same address (a NAT, a proxy) got wrong.
     */
    async recordSourceFailure(address: string): Promise<LimitDecision | null> {
      try {
        return await spend(`source:${address}`, config.sourceFailures, epochMs(deps.clock), { cost: 1 });
      } catch (error) {
        return unreachable(error);
      }
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** The deployment's figures, checked by the same schema as policies (whole, at least the floors). */
function checkedDeployment(deployment: RateLimitOverrides): RateLimitOverrides {
  const parsed = rateLimitOverridesSchema.safeParse(deployment);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
  throw new CaseKitError("validation_failed", "The deployment's rate limits are not valid", problems);
}
