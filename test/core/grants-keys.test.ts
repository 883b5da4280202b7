// Item 9 of issue 12 (and the key half of item 2): a new key's tier is capped by its creator's, like
// its scopes and clearance; the default policy allows no unlimited keys through the API; a key
// manager changes only keys within its own rights.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { allScopes, defaultOrganizationPolicy, keyTiers } from "../../core/index.js";
import type { CaseKitError, ErrorCode, KeyTier, Principal, Scope } from "../../core/index.js";
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

const rank = (tier: KeyTier) => keyTiers.indexOf(tier);

/** The documented rule: the creator's tier caps (none for sessions), then the policy decides. */
function expected(creator: KeyTier | null, requested: KeyTier, allowed: readonly KeyTier[]): ErrorCode | "ok" {
  if (creator !== null && rank(requested) > rank(creator)) return "tier_restricted";
  return allowed.includes(requested) ? "ok" : "organization_restricted";
}

describe("the tier of a new key", () => {
  let t: TestKit;
  const creators = new Map<KeyTier, Principal>();
  let session: Principal;
  beforeAll(async () => {
    t = await makeTestKit();
    const owner = await addUser(t.kit, t.organizationId, { role: "admin", tlpClearance: 4 });
    for (const tier of keyTiers) {
      creators.set(tier, await t.kit.authenticateKey((await addKey(t.kit, owner, { tier, scopes: ["keys:write", "cases:read"] })).secret));
    }
    const password = "the owner's password, long";
    await t.kit.users.update(t.admin, owner.id, { password });
    const signedIn = await t.kit.account.signIn({ email: owner.email, password });
    session = await t.kit.account.authenticateSession(signedIn.token, { requireCsrf: false });
  });

  it("the default policy allows every tier but unlimited", () => {
    expect(defaultOrganizationPolicy.allowedTiers).toEqual(["basic", "standard", "professional", "enterprise"]);
  });

  it("is at most the creator's own tier, then what the policy allows (property: creator × requested × policy)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<KeyTier | null>(null, ...keyTiers),
        fc.constantFrom(...keyTiers),
        fc.subarray([...keyTiers], { minLength: 1 }),
        async (creatorTier, requested, allowedTiers) => {
          await t.kit.organizations.updatePolicy(t.admin, { allowedTiers });
          const creator = creatorTier === null ? session : creators.get(creatorTier)!;
          const answer = await outcome(t.kit.keys.create(creator, { name: "tiered", scopes: ["cases:read"], tier: requested }));
          expect(answer).toBe(expected(creatorTier, requested, allowedTiers));
        },
      ),
      { numRuns: 150, seed: 20261124 },
    );
  });

  it("defaults to standard, or the creator's tier when lower", async () => {
    await t.kit.organizations.updatePolicy(t.admin, { allowedTiers: [...keyTiers] });
    for (const [tier, principal] of creators) {
      const created = await t.kit.keys.create(principal, { name: "default tier", scopes: ["cases:read"] });
      expect(created.tier, tier).toBe(rank(tier) < rank("standard") ? tier : "standard");
    }
    expect((await t.kit.keys.create(session, { name: "default tier", scopes: ["cases:read"] })).tier).toBe("standard");
  });

  it("caps a host identity by the tier it is given; without one, the policy alone decides", async () => {
    await t.kit.organizations.updatePolicy(t.admin, { allowedTiers: defaultOrganizationPolicy.allowedTiers });
    const basic = await t.kit.principalFor({ organizationId: t.organizationId, userId: t.admin.userId, tier: "basic" });
    expect(await outcome(t.kit.keys.create(basic, { name: "k", scopes: ["cases:read"], tier: "standard" }))).toBe("tier_restricted");
    const tierless = await t.kit.principalFor({ organizationId: t.organizationId, userId: t.admin.userId });
    expect(await outcome(t.kit.keys.create(tierless, { name: "k", scopes: ["cases:read"], tier: "enterprise" }))).toBe("ok");
    expect(await outcome(t.kit.keys.create(tierless, { name: "k", scopes: ["cases:read"], tier: "unlimited" }))).toBe("organization_restricted");
  });
});

describe("casekit init's first key", () => {
  it("is unlimited, yet mints no unlimited key through the API until an admin allows the tier", async () => {
    const t = await makeTestKit();
    expect(t.admin.tier).toBe("unlimited");
    expect(await outcome(t.kit.keys.create(t.admin, { name: "k", scopes: ["cases:read"], tier: "unlimited" }))).toBe("organization_restricted");
    await t.kit.organizations.updatePolicy(t.admin, { allowedTiers: [...keyTiers] });
    expect(await outcome(t.kit.keys.create(t.admin, { name: "k", scopes: ["cases:read"], tier: "unlimited" }))).toBe("ok");
  });
});

describe("changing an existing key", () => {
  it("a key manager suspends, resumes, revokes or deletes only keys within its own scopes and clearance", async () => {
    const t = await makeTestKit();
    const manager = await t.kit.authenticateKey((await addKey(t.kit, await addUser(t.kit, t.organizationId, { role: "admin" }), { scopes: ["keys:write", "cases:read"], tlpClearance: 1 })).secret);
    const analyst = await addUser(t.kit, t.organizationId, { role: "analyst" });
    const above: [string, Scope[], number][] = [
      ["the init admin key", [...allScopes], 4],
      ["a key with a scope the manager lacks", ["cases:write"], 1],
      ["a key above the manager's clearance", ["cases:read"], 2],
    ];
    for (const [name, scopes, tlpClearance] of above) {
      const { key } = await addKey(t.kit, analyst, { scopes, tlpClearance });
      for (const action of ["suspend", "revoke"] as const) expect(await outcome(t.kit.keys.changeStatus(manager, key.id, action)), `${name}: ${action}`).not.toBe("ok");
      expect(await outcome(t.kit.keys.delete(manager, key.id)), `${name}: delete`).not.toBe("ok");
      expect((await t.kit.keys.get(t.admin, key.id)).status, name).toBe("active");
    }
    const { key: within } = await addKey(t.kit, analyst, { scopes: ["cases:read"], tlpClearance: 1 });
    for (const action of ["suspend", "resume", "revoke"] as const) expect(await outcome(t.kit.keys.changeStatus(manager, within.id, action))).toBe("ok");
    expect(await outcome(t.kit.keys.delete(manager, within.id))).toBe("ok");
  });

  it("a person always manages their own keys, even after their role was lowered", async () => {
    const t = await makeTestKit();
    const password = "a person's password, long";
    const user = await t.kit.users.create(t.admin, { email: "pat@acme.test", name: "Pat", role: "analyst", password });
    const signedIn = await t.kit.account.signIn({ email: "pat@acme.test", password });
    const pat = await t.kit.account.authenticateSession(signedIn.token, { requireCsrf: false });
    const mine = await t.kit.keys.create(pat, { name: "mine", scopes: ["cases:write"] });
    await t.kit.users.update(t.admin, user.id, { role: "read_only" });
    const demoted = await t.kit.account.authenticateSession(signedIn.token, { requireCsrf: false });
    expect(await outcome(t.kit.keys.changeStatus(demoted, mine.id, "revoke"))).toBe("ok");
  });
});
