/**
 * The limiter's early spend (RateLimiter.spendEarly): on a remote rate-limit store a key's spend
 * starts while the key is checked, and counts only when the check confirms that very key with the
 * very limits the spend was started for. Driven as the host drives it (server/auth.ts).
 */
import { describe, expect, it } from "vitest";
import { createCaseKit, createMemoryRateLimitStore, isCaseKitError, ManualClock } from "../../core/index.js";
import type { CaseKit, EarlySpend, LimitDecision, LimiterState, RateLimitStore, Storage } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { addKey, addUser, keyHashSecret } from "../helpers/kit.js";
import { migratedMemoryDatabase } from "../helpers/migrated-sqlite.js";

interface World {
  kit: CaseKit;
  /** What happened, in order: `spend <meter>` (a store update begins) and `version` (the key check reads the access version). */
  events: string[];
  /** Makes the store's updates fail (true) or work again. */
  failStore(fail: boolean): void;
  state(meter: string): Promise<LimiterState | null>;
}

async function world(options: { remote?: boolean; failureMode?: "open" | "closed" } = {}): Promise<World & { admin: Awaited<ReturnType<CaseKit["authenticateKey"]>>; organizationId: string }> {
  const events: string[] = [];
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const inner = createMemoryRateLimitStore({ now: () => clock.now().getTime() });
  let failing = false;
  const store: RateLimitStore = {
    ...(options.remote === false ? {} : { remote: true }),
    async update(key, next) {
      events.push(`spend ${key}`);
      // A turn of the event loop, as a statement's round trip would take.
      await new Promise((resolve) => setImmediate(resolve));
      if (failing) throw new Error("store down");
      return inner.update(key, next);
    },
    peek: (key) => inner.peek(key),
  };
  const sqlite = createSqliteStorage({ database: await migratedMemoryDatabase() });
  await sqlite.migrate();
  const storage = new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property === "accessVersion" && target.accessVersion) {
        return async (organizationId: string) => {
          events.push("version");
          await new Promise((resolve) => setImmediate(resolve));
          return target.accessVersion!(organizationId);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  }) as Storage;
  const kit = createCaseKit({
    passwordHasher: fastPasswordHasher,
    storage,
    clock,
    config: { keyHashSecret },
    rateLimits: { store, ...(options.failureMode ? { failureMode: options.failureMode } : {}) },
  });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  return { kit, events, failStore: (fail) => (failing = fail), state: (meter) => inner.peek(meter), admin, organizationId: init.organization.id };
}

/** What server/auth.ts does: the key check with the early spend alongside, then the metering. */
async function admit(kit: CaseKit, secret: string): Promise<LimitDecision | null> {
  let early: EarlySpend | undefined;
  const principal = await kit.authenticateKey(secret, undefined, (candidate) => (early = kit.limits.spendEarly(candidate)));
  return kit.limits.consume(principal, early);
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (isCaseKitError(error)) return error.code;
    throw error;
  }
  return "none";
}

describe("the early spend on a remote rate-limit store", () => {
  it("starts the spend before the key check reads the access version, and spends one unit a request", async () => {
    const w = await world();
    const owner = await addUser(w.kit, w.organizationId);
    const { secret, key } = await addKey(w.kit, owner, { tier: "basic" });
    const meter = `key:${key.id}`;

    // First request: nothing is held for the key yet (the check loads it, no version read), so
    // there is no candidate and the one spend follows the check.
    w.events.length = 0;
    expect(await admit(w.kit, secret)).toMatchObject({ allowed: true, limit: 10, remaining: 9 });
    expect(w.events).toEqual([`spend ${meter}`]);

    // From then on the spend begins first and the check's version read overlaps it.
    for (let request = 2; request <= 10; request++) {
      w.events.length = 0;
      expect(await admit(w.kit, secret)).toMatchObject({ allowed: true, remaining: 10 - request });
      expect(w.events).toEqual([`spend ${meter}`, "version"]);
    }
    // Exactly one unit each: the eleventh request is the first refused.
    expect(await admit(w.kit, secret)).toMatchObject({ allowed: false, window: "minute", remaining: 0 });
  });

  it("decides nothing on the candidate: a key suspended or revoked meanwhile is refused with its own code", async () => {
    const w = await world();
    const owner = await addUser(w.kit, w.organizationId);
    const { secret, key } = await addKey(w.kit, owner, { tier: "basic" });
    await admit(w.kit, secret);

    await w.kit.keys.changeStatus(w.admin, key.id, "suspend");
    expect(await codeOf(admit(w.kit, secret))).toBe("key_suspended");
    // The held entry was reloaded by that check: a suspended key is no candidate any more.
    w.events.length = 0;
    expect(await codeOf(admit(w.kit, secret))).toBe("key_suspended");
    expect(w.events.some((e) => e.startsWith("spend key:"))).toBe(false);

    await w.kit.keys.changeStatus(w.admin, key.id, "resume");
    expect(await admit(w.kit, secret)).toMatchObject({ allowed: true });
    await w.kit.keys.changeStatus(w.admin, key.id, "revoke");
    expect(await codeOf(admit(w.kit, secret))).toBe("key_revoked");
  });

  it("spends again with the confirmed limits when the organization's policy changed meanwhile", async () => {
    const w = await world();
    const owner = await addUser(w.kit, w.organizationId);
    const { secret, key } = await addKey(w.kit, owner, { tier: "basic" });
    const meter = `key:${key.id}`;
    await admit(w.kit, secret);

    await w.kit.organizations.updatePolicy(w.admin, { rateLimits: { basic: { burst: 6 } } });
    w.events.length = 0;
    const decision = await admit(w.kit, secret);
    // The answer is decided on the new limits, never on the held ones.
    expect(decision).toMatchObject({ allowed: true, limit: 6 });
    // The early spend (old limits) was not used: the meter was spent again, after the check.
    expect(w.events.filter((e) => e === `spend ${meter}` || e === "version")).toEqual([`spend ${meter}`, "version", `spend ${meter}`]);
    // Unchanged from then on: one spend a request, begun before the check.
    w.events.length = 0;
    expect(await admit(w.kit, secret)).toMatchObject({ limit: 6 });
    expect(w.events).toEqual([`spend ${meter}`, "version"]);
  });

  it("applies the failure mode to an early spend exactly as to a late one, and leaves no rejection unheard", async () => {
    for (const failureMode of ["closed", "open"] as const) {
      const w = await world({ failureMode });
      const owner = await addUser(w.kit, w.organizationId);
      const { secret, key } = await addKey(w.kit, owner, { tier: "basic" });
      await admit(w.kit, secret);
      w.failStore(true);
      if (failureMode === "closed") expect(await codeOf(admit(w.kit, secret))).toBe("unavailable");
      else expect(await admit(w.kit, secret)).toBeNull();
      // A failed early spend beside a refused key: the key's code, and nothing unhandled.
      await w.kit.keys.changeStatus(w.admin, key.id, "revoke");
      expect(await codeOf(admit(w.kit, secret))).toBe("key_revoked");
      w.failStore(false);
    }
  });

  it("is not started on an in-process store", async () => {
    const w = await world({ remote: false });
    const owner = await addUser(w.kit, w.organizationId);
    const { secret, key } = await addKey(w.kit, owner, { tier: "basic" });
    await admit(w.kit, secret);
    w.events.length = 0;
    expect(await admit(w.kit, secret)).toMatchObject({ remaining: 8 });
    expect(w.events).toEqual(["version", `spend key:${key.id}`]);
  });
});
