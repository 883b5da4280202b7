// Issue 18: the account page offers exactly what `keys.grantOptions` says. It must say what
// `keys.create` accepts: every offered scope, tier and clearance goes through, and nothing beyond
// them does, for any creator (a session of each role and clearance, keys of each tier) and policy.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { allScopes, keyTiers } from "../../core/index.js";
import type { CaseKitError, ErrorCode, OrganizationPolicy, Principal, UserRole } from "../../core/index.js";
import { addKey, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

async function outcome(promise: Promise<unknown>): Promise<ErrorCode | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as CaseKitError).code;
  }
}

const roles: UserRole[] = ["admin", "analyst", "read_only"];
const dayMs = 86_400_000;

describe("keys.grantOptions says what keys.create accepts", () => {
  let t: TestKit;
  const creators: Principal[] = [];
  beforeAll(async () => {
    t = await makeTestKit();
    const password = "a long enough password";
    for (const role of roles) {
      for (const tlpClearance of [0, 2, 4]) {
        const user = await addUser(t.kit, t.organizationId, { role, tlpClearance });
        await t.kit.users.update(t.admin, user.id, { password });
        const signedIn = await t.kit.account.signIn({ email: user.email, password });
        creators.push(await t.kit.account.authenticateSession(signedIn.token, { requireCsrf: false }));
      }
    }
    const keyManager = await addUser(t.kit, t.organizationId, { role: "admin", tlpClearance: 3 });
    for (const tier of ["basic", "professional"] as const) {
      creators.push(await t.kit.authenticateKey((await addKey(t.kit, keyManager, { tier, scopes: ["keys:write", "cases:read", "alerts:write"], tlpClearance: 3 })).secret));
    }
  });

  const policies = fc.record({
    maxKeyTlp: fc.integer({ min: 0, max: 4 }),
    requireKeyExpiry: fc.boolean(),
    maxKeyLifetimeDays: fc.option(fc.integer({ min: 1, max: 90 }), { nil: null }),
    allowedTiers: fc.subarray([...keyTiers], { minLength: 1 }),
  });

  it("for any creator and policy: each offered scope, tier and clearance is accepted; the next clearance, an unoffered tier or scope is refused", async () => {
    await fc.assert(
      fc.asyncProperty(policies, fc.nat(), async (policy, pick) => {
        await t.kit.organizations.updatePolicy(t.admin, policy as Partial<OrganizationPolicy>);
        for (const creator of creators) {
          const options = await t.kit.keys.grantOptions(creator);
          const expiresAt = options.expiryRequired ? new Date(t.clock.now().getTime() + (options.maxLifetimeDays ?? 30) * dayMs - 60_000).toISOString() : undefined;
          const create = (body: Record<string, unknown>) => outcome(t.kit.keys.create(creator, { name: "Offered", ...(expiresAt ? { expiresAt } : {}), ...body }));
          expect(options.scopes.length).toBeGreaterThan(0);
          const scope = options.scopes[pick % options.scopes.length]!;
          if (options.tiers.length === 0) {
            // Nothing to offer (say, a basic key where the policy allows only higher tiers): every tier is refused.
            for (const tier of keyTiers) expect(await create({ scopes: [scope], tier }), tier).not.toBe("ok");
            continue;
          }
          for (const tier of options.tiers) {
            expect(await create({ scopes: [scope], tier, tlpClearance: options.maxTlpClearance }), `${tier}`).toBe("ok");
          }
          expect(await create({ scopes: options.scopes, tier: options.tiers[0], tlpClearance: 0 })).toBe("ok");
          for (const tier of keyTiers.filter((tier) => !options.tiers.includes(tier))) {
            expect(await create({ scopes: [scope], tier }), tier).not.toBe("ok");
          }
          for (const other of allScopes.filter((s) => !options.scopes.includes(s))) {
            expect(await create({ scopes: [other], tier: options.tiers[0] }), other).toBe("missing_scope");
          }
          if (options.maxTlpClearance < 4) expect(await create({ scopes: [scope], tier: options.tiers[0], tlpClearance: options.maxTlpClearance + 1 })).not.toBe("ok");
          if (options.expiryRequired) expect(await outcome(t.kit.keys.create(creator, { name: "No expiry", scopes: [scope], tier: options.tiers[0] }))).toBe("organization_restricted");
        }
      }),
      { numRuns: 12 },
    );
  }, 60_000);

  it("is refused to a key without keys:write, like create", async () => {
    const owner = await addUser(t.kit, t.organizationId, { role: "admin" });
    const plain = await t.kit.authenticateKey((await addKey(t.kit, owner, { scopes: ["cases:read"] })).secret);
    expect(await outcome(t.kit.keys.grantOptions(plain))).toBe("missing_scope");
  });
});
