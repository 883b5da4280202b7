import { afterEach, describe, expect, it } from "vitest";
import { generateKeySecret, signInFailureLimit, tierLimits, unlimitedCeiling } from "../../core/index.js";
import type { KeyTier } from "../../core/index.js";
import { apiBasePath } from "../../server/index.js";
import { addKey, addUser } from "../helpers/kit.js";
import { bearer, inProcess, listening } from "./http.js";
import type { Answer, Transport } from "./http.js";
import { makeWorld, validCase } from "./world.js";
import type { World } from "./world.js";

const health = `${apiBasePath}/health`;
const cases = `${apiBasePath}/cases`;

async function keyOfTier(w: World, tier: KeyTier): Promise<string> {
  const owner = await addUser(w.kit, w.organizationId);
  return (await addKey(w.kit, owner, { tier })).secret;
}

function limitHeaders(answer: Answer) {
  const read = (name: string) => {
    const value = answer.headers.get(name);
    expect(value, name).toMatch(/^\d+$/);
    return Number(value);
  };
  return { limit: read("x-ratelimit-limit"), remaining: read("x-ratelimit-remaining"), reset: read("x-ratelimit-reset") };
}

function expect429(answer: Answer, nowMs: number): void {
  expect(answer.status).toBe(429);
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.body).toMatchObject({ status: 429, code: "rate_limited" });
  const retryAfter = Number(answer.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  // Consistent with the reset: waiting Retry-After never takes you past the reported reset.
  expect(Math.ceil(nowMs / 1000) + retryAfter).toBeLessThanOrEqual(limitHeaders(answer).reset + 1);
}

describe.each(Object.keys(tierLimits) as Exclude<KeyTier, "unlimited">[])("the %s tier over HTTP", (tier) => {
  it("admits `burst` back-to-back requests, refuses the next with 429, and recovers as time passes", async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    const secret = await keyOfTier(w, tier);
    const { burst, perMinute } = tierLimits[tier];
    let lastReset = 0;
    for (let i = 0; i < burst; i++) {
      const answer = await client.send("GET", health, { headers: bearer(secret) });
      expect(answer.status).toBe(200);
      const headers = limitHeaders(answer);
      expect(headers).toMatchObject({ limit: burst, remaining: burst - i - 1 });
      expect(headers.reset).toBeGreaterThanOrEqual(lastReset);
      lastReset = headers.reset;
    }
    const refused = await client.send("GET", health, { headers: bearer(secret) });
    expect429(refused, w.clock.now().getTime());
    expect(limitHeaders(refused)).toMatchObject({ limit: burst, remaining: 0 });
    expect(limitHeaders(refused).reset).toBeGreaterThanOrEqual(lastReset);

    w.clock.advance(Math.ceil(60_000 / perMinute));
    expect((await client.send("GET", health, { headers: bearer(secret) })).status).toBe(200);
  });
});

describe("rate-limit headers and budgets", () => {
  it("go on every authenticated answer: success, validation error, not found, missing scope", async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    const owner = await addUser(w.kit, w.organizationId);
    const secret = (await addKey(w.kit, owner, { tier: "basic", scopes: ["cases:read"] })).secret;
    const answers = [
      await client.send("GET", cases, { headers: bearer(secret) }),
      await client.send("GET", `${cases}?severity=9`, { headers: bearer(secret) }),
      await client.send("GET", `${cases}/case_00000000000000000000000000`, { headers: bearer(secret) }),
      await client.send("POST", cases, { headers: bearer(secret), body: validCase }),
      await client.send("GET", `${apiBasePath}/no-such-route`, { headers: bearer(secret) }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 400, 404, 403, 404]);
    expect(answers.map((a) => limitHeaders(a).remaining)).toEqual([9, 8, 7, 6, 5]);
  });

  it("never reaches the handler when refused: a refused create stores nothing", async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    const secret = await keyOfTier(w, "basic");
    for (let i = 0; i < tierLimits.basic.burst; i++) {
      expect((await client.send("POST", cases, { headers: bearer(secret), body: validCase })).status).toBe(200);
    }
    expect((await client.send("POST", cases, { headers: bearer(secret), body: validCase })).status).toBe(429);
    const listed = await client.send("GET", `${cases}?limit=100`, { headers: bearer(w.adminKey) });
    expect(listed.body.data).toHaveLength(tierLimits.basic.burst);
  });

  it("exhausting one key never changes another key's remaining budget", async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    const spent = await keyOfTier(w, "basic");
    const fresh = await keyOfTier(w, "basic");
    expect(limitHeaders(await client.send("GET", health, { headers: bearer(fresh) })).remaining).toBe(9);
    for (let i = 0; i < 15; i++) await client.send("GET", health, { headers: bearer(spent) });
    expect((await client.send("GET", health, { headers: bearer(spent) })).status).toBe(429);
    expect(limitHeaders(await client.send("GET", health, { headers: bearer(fresh) })).remaining).toBe(8);
  });

  it("applies the deployment's figures and the organization's lower ones; unlimited keys get the deployment's", async () => {
    // Figures at or above the floors (rateLimitFloors: burst ≥ 5): lower ones are refused.
    const w = await makeWorld({}, { rateLimits: { deployment: { basic: { burst: 8 }, unlimited: { perMinute: 600, perHour: 10_000, burst: 6 } } } });
    const client = inProcess(w.app);
    const basic = await keyOfTier(w, "basic");
    expect(limitHeaders(await client.send("GET", health, { headers: bearer(basic) }))).toMatchObject({ limit: 8, remaining: 7 });
    // The init admin key is `unlimited`: it spends the deployment's figures.
    expect(limitHeaders(await client.send("GET", health, { headers: bearer(w.adminKey) }))).toMatchObject({ limit: 6, remaining: 5 });

    const policy = await client.send("PATCH", `${apiBasePath}/organization/policy`, {
      headers: bearer(w.adminKey),
      body: { rateLimits: { basic: { burst: 5 } } },
    });
    expect(policy.status).toBe(200);
    const lowered = await keyOfTier(w, "basic");
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await client.send("GET", health, { headers: bearer(lowered) })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("meters unlimited keys too: without deployment figures they state the documented ceiling", async () => {
    const w = await makeWorld();
    const answer = await inProcess(w.app).send("GET", health, { headers: bearer(w.adminKey) });
    expect(answer.status).toBe(200);
    expect(limitHeaders(answer)).toMatchObject({ limit: unlimitedCeiling.burst, remaining: unlimitedCeiling.burst - 1 });
  });

  it("answers 503 unavailable when the store cannot be reached (closed), or admits unmetered (open)", async () => {
    const broken = { update: async () => Promise.reject(new Error("down")), peek: async () => Promise.reject(new Error("down")) };
    const closed = await makeWorld({}, { rateLimits: { store: broken } });
    const key = await keyOfTier(closed, "basic");
    const refused = await inProcess(closed.app).send("GET", health, { headers: bearer(key) });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: "unavailable" });
    expect(refused.text).not.toContain("down");

    const open = await makeWorld({}, { rateLimits: { store: broken, failureMode: "open" } });
    const key2 = await keyOfTier(open, "basic");
    const admitted = await inProcess(open.app).send("GET", health, { headers: bearer(key2) });
    expect(admitted.status).toBe(200);
    expect(admitted.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

describe("throttling by source address", () => {
  let client: (Transport & { port: number }) | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  const sourceFailures = { perMinute: 10, perHour: 100, burst: 5 };

  it("refuses further invalid keys from an address after `burst` of them, until time passes; valid keys from it are never refused", async () => {
    const w = await makeWorld({ trustProxy: true }, { rateLimits: { sourceFailures } });
    client = await listening(w.app);
    const from = (address: string, key: string) => [...bearer(key), ["X-Forwarded-For", address]] as [string, string][];
    const guess = () => generateKeySecret();
    for (let i = 0; i < sourceFailures.burst; i++) {
      const answer = await client.send("GET", health, { headers: from("198.51.100.7", guess()) });
      expect(answer.body.code).toBe("invalid_key");
    }
    const blocked = await client.send("GET", health, { headers: from("198.51.100.7", guess()) });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe("rate_limited");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // A valid key from the same address (a NAT, a proxy) is admitted: only bad keys are refused,
    // and a guess cannot tell anything from that (random guesses fail the checksum before any lookup).
    expect((await client.send("GET", health, { headers: from("198.51.100.7", w.adminKey) })).status).toBe(200);
    expect((await client.send("GET", health, { headers: from("198.51.100.8", guess()) })).body.code).toBe("invalid_key");

    w.clock.advance(Math.ceil(60_000 / sourceFailures.perMinute) + 1);
    expect((await client.send("GET", health, { headers: from("198.51.100.7", guess()) })).body.code).toBe("invalid_key");
  });

  it("counts revoked, suspended, expired and owner-inactive keys as failures, but not missing credentials", async () => {
    const w = await makeWorld({}, { rateLimits: { sourceFailures } });
    client = await listening(w.app);
    for (let i = 0; i < 10; i++) expect((await client.send("GET", health)).body.code).toBe("missing_credentials");
    for (const key of [w.keys.revoked, w.keys.suspended, w.keys.expired, w.keys.ownerDisabled, w.keys.ownerLocked]) {
      expect((await client.send("GET", health, { headers: bearer(key) })).status).toBe(401);
    }
    expect((await client.send("GET", health, { headers: bearer(w.keys.revoked) })).status).toBe(429);
    expect((await client.send("GET", health, { headers: bearer(w.adminKey) })).status).toBe(200);
  });

  it("limits failed sign-ins per (email, address): the address is refused for that email, other emails from it are still checked", async () => {
    const w = await makeWorld({}, { rateLimits: { sourceFailures } });
    client = await listening(w.app);
    for (let i = 0; i < signInFailureLimit; i++) {
      const answer = await client.send("POST", "/account/sign-in", { body: { email: "someone@example.test", password: "wrong password" } });
      expect(answer.body.code).toBe("invalid_credentials");
    }
    const blocked = await client.send("POST", "/account/sign-in", { body: { email: "someone@example.test", password: "wrong password" } });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe("rate_limited");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const other = await client.send("POST", "/account/sign-in", { body: { email: "someone-else@example.test", password: "wrong password" } });
    expect(other.body.code).toBe("invalid_credentials");
  });
});
