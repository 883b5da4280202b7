// Issue 12 items 12 and 14 over HTTP: every authenticated answer carries whole-number rate-limit
// headers (spec §8.2), `unlimited` keys included, and no policy can lock the admin out.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keyTiers, rateLimitFloors, unlimitedCeiling } from "../../core/index.js";
import type { RateLimitOverrides } from "../../core/index.js";
import { apiBasePath } from "../../server/index.js";
import { apiRoutes } from "../../server/routes/index.js";
import { addKey, addUser } from "../helpers/kit.js";
import { bearer, inProcess } from "./http.js";
import type { Answer } from "./http.js";
import { makeWorld } from "./world.js";
import type { World } from "./world.js";

const policyPath = `${apiBasePath}/organization/policy`;

function expectWholeHeaders(answer: Answer, label: string): { limit: number; remaining: number; reset: number } {
  const read = (name: string) => {
    const value = answer.headers.get(name);
    expect(value, `${label}: ${name} (status ${answer.status})`).toMatch(/^\d+$/);
    return Number(value);
  };
  return { limit: read("x-ratelimit-limit"), remaining: read("x-ratelimit-remaining"), reset: read("x-ratelimit-reset") };
}

/** Stores a policy as it might sit in an old database, past today's schema. */
async function storePolicy(w: World, rateLimits: unknown): Promise<void> {
  await w.kit.storage.transaction(async (tx) => {
    const organization = (await tx.organizations.findById(w.organizationId))!;
    await tx.organizations.update({ ...organization, policy: { ...organization.policy, rateLimits: rateLimits as RateLimitOverrides } });
  });
}

describe("every authenticated answer states the key's limits", () => {
  const keyed = apiRoutes.filter((route) => !route.public);

  it.each(keyed.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s, with the unlimited key `casekit init` prints",
    async (label, route) => {
      const w = await makeWorld();
      const path = apiBasePath + route.path.replace(/:(\w+)/g, "x_$1");
      const answer = await inProcess(w.app).send(route.method, path, route.body ? { headers: bearer(w.adminKey), body: {} } : { headers: bearer(w.adminKey) });
      expect(answer.status, answer.text).toBeLessThan(500);
      expect(expectWholeHeaders(answer, label).limit).toBe(unlimitedCeiling.burst);
    },
  );

  it("on unknown API paths and refused methods too", async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    for (const [method, path] of [
      ["GET", `${apiBasePath}/no-such-route`],
      ["PUT", `${apiBasePath}/cases`],
    ] as const) {
      const answer = await client.send(method, path, { headers: bearer(w.adminKey) });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expectWholeHeaders(answer, `${method} ${path}`);
    }
  });
});

describe("policies and deployment figures never give a non-integer header (property)", () => {
  const anyFigure = fc.oneof(fc.integer({ min: -3, max: 100_000 }), fc.double({ min: -1, max: 1e6 }), fc.constantFrom(Number.NaN, 0.5, 0, null, undefined));
  const storedPolicy = fc.dictionary(fc.constantFrom(...keyTiers), fc.record({ perMinute: anyFigure, perHour: anyFigure, burst: anyFigure }, { requiredKeys: [] }));
  const deployment = fc.dictionary(
    fc.constantFrom(...keyTiers),
    fc.record(
      {
        perMinute: fc.integer({ min: rateLimitFloors.perMinute, max: 100_000 }),
        perHour: fc.integer({ min: rateLimitFloors.perHour, max: 1_000_000 }),
        burst: fc.integer({ min: rateLimitFloors.burst, max: 10_000 }),
      },
      { requiredKeys: [] },
    ),
  );

  it("for keys of every tier, over a run of requests", async () => {
    await fc.assert(
      fc.asyncProperty(deployment, storedPolicy, fc.integer({ min: 1, max: 12 }), async (figures, policy, requests) => {
        const w = await makeWorld({}, { rateLimits: { deployment: figures } });
        await storePolicy(w, policy);
        const client = inProcess(w.app);
        const owner = await addUser(w.kit, w.organizationId);
        for (const tier of keyTiers) {
          const secret = (await addKey(w.kit, owner, { tier })).secret;
          for (let i = 0; i < requests; i++) {
            const answer = await client.send("GET", `${apiBasePath}/health`, { headers: bearer(secret) });
            expect([200, 429]).toContain(answer.status);
            const { limit } = expectWholeHeaders(answer, `${tier} #${i}`);
            expect(limit).toBeGreaterThanOrEqual(rateLimitFloors.burst);
          }
        }
      }),
      { numRuns: 25, seed: 1412 },
    );
  });
});

describe("settings that would lock the admin out", () => {
  it('`{"rateLimits":{"unlimited":{}}}` is harmless: the headers stay whole numbers (was `Infinity`)', async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    expect((await client.send("PATCH", policyPath, { headers: bearer(w.adminKey), body: { rateLimits: { unlimited: {} } } })).status).toBe(200);
    expect(expectWholeHeaders(await client.send("GET", `${apiBasePath}/health`, { headers: bearer(w.adminKey) }), "after the policy").limit).toBe(unlimitedCeiling.burst);
  });

  it("one request a minute and an hour for `unlimited` is 400; at the floors the admin can still undo it", async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    const refused = await client.send("PATCH", policyPath, { headers: bearer(w.adminKey), body: { rateLimits: { unlimited: { perMinute: 1, perHour: 1 } } } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("validation_failed");
    expect(refused.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["rateLimits.unlimited.perHour", "rateLimits.unlimited.perMinute"]);

    const lowest = { perMinute: rateLimitFloors.perMinute, perHour: rateLimitFloors.perHour, burst: rateLimitFloors.burst };
    expect((await client.send("PATCH", policyPath, { headers: bearer(w.adminKey), body: { rateLimits: { unlimited: lowest } } })).status).toBe(200);
    for (let i = 0; i < rateLimitFloors.burst - 2; i++) expect((await client.send("GET", `${apiBasePath}/health`, { headers: bearer(w.adminKey) })).status).toBe(200);
    const undone = await client.send("PATCH", policyPath, { headers: bearer(w.adminKey), body: { rateLimits: {} } });
    expect(undone.status).toBe(200);
    // The PATCH itself was metered by the floors; the next minute the ceiling applies again.
    w.clock.advance(60_000);
    expect(expectWholeHeaders(await client.send("GET", `${apiBasePath}/health`, { headers: bearer(w.adminKey) }), "undone").limit).toBe(unlimitedCeiling.burst);
  });
});
