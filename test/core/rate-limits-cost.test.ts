// Issue 12 item 5(b): a request's cost to its key's budget grows with the rows it touches.
import { describe, expect, it } from "vitest";
import { rowCost, rowsPerCostUnit, tierLimits } from "../../core/index.js";
import { addKey, addUser, makeTestKit } from "../helpers/kit.js";

describe("the cost of rows", () => {
  it.each([
    [0, 0],
    [1, 0],
    [99, 0],
    [100, 1],
    [199, 1],
    [1_000, 10],
    [100_000, 1_000],
  ])("%i rows add %i units to the request's one", (rows, units) => {
    expect(rowCost(rows)).toBe(units);
    expect(rowsPerCostUnit).toBe(100);
  });

  it("is charged after the work even past the budget, shows in the decision, and refuses the key's next request until it recovers", async () => {
    const t = await makeTestKit();
    const owner = await addUser(t.kit, t.organizationId);
    const key = await t.kit.authenticateKey((await addKey(t.kit, owner, { tier: "basic" })).secret);
    const { burst, perMinute } = tierLimits.basic;

    expect(await t.kit.limits.consume(key)).toMatchObject({ allowed: true, remaining: burst - 1 });
    // Fewer than 100 rows: nothing beyond the request's own unit.
    expect(await t.kit.limits.chargeRows(key, 99)).toBeNull();
    // 300 rows: 3 more units.
    expect(await t.kit.limits.chargeRows(key, 300)).toMatchObject({ allowed: true, remaining: burst - 4 });
    // 2 000 rows: 20 units, far past the burst of 10; the charge is recorded all the same.
    expect(await t.kit.limits.chargeRows(key, 2_000)).toMatchObject({ allowed: true, remaining: 0 });

    const refused = (await t.kit.limits.consume(key))!;
    expect(refused.allowed).toBe(false);
    // 4 + 20 = 24 units spent at once against a burst of 10 at 1 a second: 15 s until one fits.
    expect(refused.retryAfterMs).toBe((24 - burst + 1) * (60_000 / perMinute));

    t.clock.advance(refused.retryAfterMs);
    expect((await t.kit.limits.consume(key))!.allowed).toBe(true);
  });

  it("counts against the hourly cap too: 100 000 rows on a basic key (1 000 an hour) spend the hour", async () => {
    const t = await makeTestKit();
    const owner = await addUser(t.kit, t.organizationId);
    const key = await t.kit.authenticateKey((await addKey(t.kit, owner, { tier: "basic" })).secret);
    await t.kit.limits.consume(key);
    expect(await t.kit.limits.chargeRows(key, 100_000)).toMatchObject({ window: "hour", limit: tierLimits.basic.perHour, remaining: 0 });
    t.clock.advance(30 * 60_000);
    const refused = (await t.kit.limits.consume(key))!;
    expect(refused).toMatchObject({ allowed: false, window: "hour" });
    expect(refused.retryAfterMs).toBeGreaterThan(25 * 60_000);
  });

  it("never turns a finished request into an error when the store is down", async () => {
    const broken = { update: async () => Promise.reject(new Error("down")), peek: async () => Promise.reject(new Error("down")) };
    const t = await makeTestKit({ rateLimits: { store: broken } });
    expect(await t.kit.limits.chargeRows(t.admin, 5_000)).toBeNull();
  });
});
