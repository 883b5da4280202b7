import { describe, expect, it } from "vitest";
import type { Organization, StoredApiKey, StoredUser } from "../../core/index.js";
import type { OrganizationPolicy } from "../../core/organizations/policy.js";
import { defaultOrganizationPolicy } from "../../core/organizations/policy.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined } from "./suite-context.js";

/** A policy unlike the defaults in every setting. */
const strictPolicy: OrganizationPolicy = {
  maxKeyTlp: 2,
  requireKeyExpiry: true,
  maxKeyLifetimeDays: 90,
  allowedTiers: ["basic", "enterprise"],
  rateLimits: { basic: { perMinute: 10, burst: 3 }, enterprise: { perHour: 5000 } },
  allowCaseSharing: true,
  auditRetentionDays: 400,
};

/** Organizations, users and API keys. */
export function describeRecords(ctx: SuiteContext): void {
  describe("organizations", () => {
    it("insert then findById returns the same record", async () => {
      const org = ctx.fixtures().organization({ name: "Acme SOC — Zürich ☕" });
      await ctx.storage().transaction((tx) => tx.organizations.insert(org));
      const found = await ctx.storage().read((tx) => tx.organizations.findById(org.id));
      expect(found).toStrictEqual(org);
      expectNoUndefined(found);
    });

    it("findById of an unknown id is null", async () => {
      const found = await ctx.storage().read((tx) => tx.organizations.findById(ctx.fixtures().ids.next("org")));
      expect(found).toBeNull();
    });

    it("existingIds returns exactly the ids that exist, and nothing for an empty list", async () => {
      const { org: a } = await ctx.seedOrganization();
      const { org: b } = await ctx.seedOrganization();
      const unknown = ctx.fixtures().ids.next("org");
      const found = await ctx.storage().read((tx) => tx.organizations.existingIds([unknown, b.id, a.id, b.id]));
      expect([...new Set(found)].sort()).toEqual([a.id, b.id].sort());
      expect(await ctx.storage().read((tx) => tx.organizations.existingIds([]))).toEqual([]);
      expect(await ctx.storage().read((tx) => tx.organizations.existingIds([unknown]))).toEqual([]);
    });

    it("a taken name is a conflict whose message carries no SQL, and nothing is written", async () => {
      const f = ctx.fixtures();
      const first = f.organization({ name: "Same Name" });
      await ctx.storage().transaction((tx) => tx.organizations.insert(first));
      const second = f.organization({ name: "Same Name" });
      await expectConflict(ctx.storage().transaction((tx) => tx.organizations.insert(second)));
      expect(await ctx.storage().read((tx) => tx.organizations.findById(second.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.organizations.findById(first.id))).toStrictEqual(first);
    });

    it("a taken id is a conflict", async () => {
      const f = ctx.fixtures();
      const first = f.organization();
      await ctx.storage().transaction((tx) => tx.organizations.insert(first));
      await expectConflict(ctx.storage().transaction((tx) => tx.organizations.insert({ ...f.organization(), id: first.id })));
    });

    it("nextCaseNumber counts 1, 2, 3 … per organization, independently", async () => {
      const { org: a } = await ctx.seedOrganization();
      const { org: b } = await ctx.seedOrganization();
      const next = (id: string) => ctx.storage().transaction((tx) => tx.organizations.nextCaseNumber(id));
      expect(await next(a.id)).toBe(1);
      expect(await next(a.id)).toBe(2);
      expect(await next(b.id)).toBe(1);
      expect(await next(a.id)).toBe(3);
      expect(await next(b.id)).toBe(2);
      const inOneUnit = await ctx.storage().transaction(async (tx) => [
        await tx.organizations.nextCaseNumber(b.id),
        await tx.organizations.nextCaseNumber(b.id),
      ]);
      expect(inOneUnit).toEqual([3, 4]);
    });

    it("the policy round-trips, every setting included, and an insert without changes reads the defaults", async () => {
      const f = ctx.fixtures();
      const strict = f.organization({ policy: strictPolicy });
      const plain = f.organization();
      await ctx.storage().transaction(async (tx) => {
        await tx.organizations.insert(strict);
        await tx.organizations.insert(plain);
      });
      expect(await ctx.storage().read((tx) => tx.organizations.findById(strict.id))).toStrictEqual(strict);
      const found = await ctx.storage().read((tx) => tx.organizations.findById(plain.id));
      expect(found?.policy).toStrictEqual(defaultOrganizationPolicy);
      expectNoUndefined(found);
    });

    it("update replaces name, policy and updatedAt, and nothing else", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const bystander = f.organization();
      await ctx.storage().transaction((tx) => tx.organizations.insert(bystander));
      await ctx.storage().transaction((tx) => tx.organizations.nextCaseNumber(org.id));
      f.clock.advance(60_000);
      const after: Organization = { ...org, name: "Renamed SOC", policy: strictPolicy, updatedAt: f.at() };
      await ctx.storage().transaction((tx) => tx.organizations.update(after));
      expect(await ctx.storage().read((tx) => tx.organizations.findById(org.id))).toStrictEqual(after);
      expect(await ctx.storage().read((tx) => tx.organizations.findById(bystander.id))).toStrictEqual(bystander);
      // createdAt is not the update's to change, and the case counter survives it.
      await ctx.storage().transaction((tx) => tx.organizations.update({ ...after, createdAt: "2020-01-01T00:00:00.000Z" }));
      expect((await ctx.storage().read((tx) => tx.organizations.findById(org.id)))?.createdAt).toBe(org.createdAt);
      expect(await ctx.storage().transaction((tx) => tx.organizations.nextCaseNumber(org.id))).toBe(2);
    });

    it("update of an unknown organization changes nothing; to a taken name it is a conflict", async () => {
      const { org: a } = await ctx.seedOrganization();
      const { org: b } = await ctx.seedOrganization();
      const ghost = ctx.fixtures().organization();
      await ctx.storage().transaction((tx) => tx.organizations.update(ghost));
      expect(await ctx.storage().read((tx) => tx.organizations.findById(ghost.id))).toBeNull();
      await expectConflict(ctx.storage().transaction((tx) => tx.organizations.update({ ...b, name: a.name })));
      expect(await ctx.storage().read((tx) => tx.organizations.findById(b.id))).toStrictEqual(b);
    });

    it("a NULL policy (a row from before the column) reads as the defaults", async () => {
      const { org } = await ctx.seedOrganization({ policy: strictPolicy });
      await ctx.raw().exec("UPDATE organizations SET policy = NULL WHERE id = ?", [org.id]);
      const found = await ctx.storage().read((tx) => tx.organizations.findById(org.id));
      expect(found).toStrictEqual({ ...org, policy: defaultOrganizationPolicy });
      expectNoUndefined(found);
    });

    it("a stored policy missing settings (added after it was written) gets their defaults", async () => {
      const { org } = await ctx.seedOrganization();
      await ctx.raw().exec("UPDATE organizations SET policy = ? WHERE id = ?", [JSON.stringify({ allowCaseSharing: true, maxKeyTlp: 1 }), org.id]);
      const read = () => ctx.storage().read((tx) => tx.organizations.findById(org.id));
      const found = await read();
      expect(found?.policy).toStrictEqual({ ...defaultOrganizationPolicy, allowCaseSharing: true, maxKeyTlp: 1 });
      // Each read gets its own copy of the defaults: changing one changes neither the next read
      // nor the defaults themselves.
      found!.policy.allowedTiers.pop();
      found!.policy.rateLimits.basic = { perMinute: 1 };
      expect((await read())?.policy).toStrictEqual({ ...defaultOrganizationPolicy, allowCaseSharing: true, maxKeyTlp: 1 });
      expect(defaultOrganizationPolicy.rateLimits).toEqual({});
    });
  });

  describe("users", () => {
    it("insert then findById returns the same record, password hash included", async () => {
      const { org, user: creator } = await ctx.seedOrganization();
      const user = ctx.fixtures().user(org.id, {
        role: "admin",
        status: "locked",
        tlpClearance: 4,
        passwordHash: "scrypt$16384$8$1$c2FsdA$aGFzaA",
        createdBy: creator.id,
        name: "Zoë O'Brien",
      });
      await ctx.storage().transaction((tx) => tx.users.insert(user));
      const found = await ctx.storage().read((tx) => tx.users.findById(org.id, user.id));
      expect(found).toStrictEqual(user);
      expectNoUndefined(found);
    });

    it("absent optional values come back as null", async () => {
      const { user } = await ctx.seedOrganization();
      const found = await ctx.storage().read((tx) => tx.users.findById(user.organizationId, user.id));
      expect(found?.passwordHash).toBeNull();
      expect(found?.createdBy).toBeNull();
      expectNoUndefined(found);
    });

    it("a taken email is a conflict, across organizations too", async () => {
      const { org: a, user } = await ctx.seedOrganization();
      const { org: b } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      await expectConflict(ctx.storage().transaction((tx) => tx.users.insert(f.user(a.id, { email: user.email }))));
      const elsewhere = f.user(b.id, { email: user.email });
      await expectConflict(ctx.storage().transaction((tx) => tx.users.insert(elsewhere)));
      expect(await ctx.storage().read((tx) => tx.users.findById(b.id, elsewhere.id))).toBeNull();
    });

    it("findById with another organization's id is null", async () => {
      const { user } = await ctx.seedOrganization();
      const { org: other } = await ctx.seedOrganization();
      expect(await ctx.storage().read((tx) => tx.users.findById(other.id, user.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.users.findById(user.organizationId, ctx.fixtures().ids.next("user")))).toBeNull();
    });

    it("findByEmail finds the user in any organization, whatever the case of the address given", async () => {
      const { user: a } = await ctx.seedOrganization();
      const { org } = await ctx.seedOrganization();
      const b = ctx.fixtures().user(org.id, { email: "zoe.obrien@example.test", passwordHash: "scrypt$x" });
      await ctx.storage().transaction((tx) => tx.users.insert(b));
      expect(await ctx.storage().read((tx) => tx.users.findByEmail(a.email))).toStrictEqual(a);
      expect(await ctx.storage().read((tx) => tx.users.findByEmail(b.email))).toStrictEqual(b);
      expect(await ctx.storage().read((tx) => tx.users.findByEmail("Zoe.OBrien@Example.TEST"))).toStrictEqual(b);
      expect(await ctx.storage().read((tx) => tx.users.findByEmail("nobody@example.test"))).toBeNull();
      // Exact address only: no pattern matching.
      expect(await ctx.storage().read((tx) => tx.users.findByEmail("%@example.test"))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.users.findByEmail("zoe.obrien@example.tes"))).toBeNull();
    });

    it("update replaces the stored user", async () => {
      const { org, user: admin } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const user = f.user(org.id, { passwordHash: "scrypt$old" });
      await ctx.storage().transaction((tx) => tx.users.insert(user));
      f.clock.advance(1000);
      const after: StoredUser = {
        ...user,
        email: "renamed@example.test",
        name: "Renamed",
        role: "read_only",
        status: "disabled",
        tlpClearance: 1,
        passwordHash: null,
        updatedAt: f.at(),
        createdBy: admin.id,
      };
      await ctx.storage().transaction((tx) => tx.users.update(after));
      expect(await ctx.storage().read((tx) => tx.users.findById(org.id, user.id))).toStrictEqual(after);
      expect(await ctx.storage().read((tx) => tx.users.findByEmail(after.email))).toStrictEqual(after);
      expect(await ctx.storage().read((tx) => tx.users.findByEmail(user.email))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.users.findById(org.id, admin.id))).toStrictEqual(admin);
    });

    it("update through another organization changes nothing; to a taken email it is a conflict", async () => {
      const { org, user } = await ctx.seedOrganization();
      const { org: other, user: theirs } = await ctx.seedOrganization();
      await ctx.storage().transaction((tx) => tx.users.update({ ...user, organizationId: other.id, name: "Hijacked", role: "admin" }));
      expect(await ctx.storage().read((tx) => tx.users.findById(org.id, user.id))).toStrictEqual(user);
      expect(await ctx.storage().read((tx) => tx.users.findById(other.id, user.id))).toBeNull();
      await expectConflict(ctx.storage().transaction((tx) => tx.users.update({ ...user, email: theirs.email })));
      expect(await ctx.storage().read((tx) => tx.users.findById(org.id, user.id))).toStrictEqual(user);
    });
  });

  describe("API keys", () => {
    async function seedKey(overrides: Partial<StoredApiKey> = {}): Promise<{ key: StoredApiKey; owner: StoredUser }> {
      const { user } = await ctx.seedOrganization();
      const key = ctx.fixtures().apiKey(user, overrides);
      await ctx.storage().transaction((tx) => tx.apiKeys.insert(key));
      return { key, owner: user };
    }

    it("findByHash returns the key and its owner, every field intact", async () => {
      const { key, owner } = await seedKey({
        description: "CI pipeline",
        tier: "enterprise",
        scopes: ["cases:read", "alerts:write", "audit:read", "org:admin"],
        tlpClearance: 3,
        status: "suspended",
        expiresAt: "2027-01-01T00:00:00.000Z",
        lastUsedAt: "2026-01-15T08:00:00.123Z",
      });
      const found = await ctx.storage().read((tx) => tx.apiKeys.findByHash(key.hash));
      expect(found).toStrictEqual({ key, owner });
      expectNoUndefined(found);
    });

    it("findByHash of an unknown hash is null", async () => {
      await seedKey();
      expect(await ctx.storage().read((tx) => tx.apiKeys.findByHash("no-such-hash"))).toBeNull();
    });

    it("a taken hash is a conflict", async () => {
      const { key, owner } = await seedKey();
      await expectConflict(ctx.storage().transaction((tx) => tx.apiKeys.insert(ctx.fixtures().apiKey(owner, { hash: key.hash }))));
    });

    it("touchLastUsed sets lastUsedAt, only within the key's organization", async () => {
      const { key } = await seedKey();
      const { org: other } = await ctx.seedOrganization();
      await ctx.storage().transaction((tx) => tx.apiKeys.touchLastUsed(other.id, key.id, "2026-05-05T05:05:05.555Z"));
      expect((await ctx.storage().read((tx) => tx.apiKeys.findByHash(key.hash)))?.key.lastUsedAt).toBeNull();

      await ctx.storage().transaction((tx) => tx.apiKeys.touchLastUsed(key.organizationId, key.id, "2026-05-05T05:05:05.555Z"));
      const found = await ctx.storage().read((tx) => tx.apiKeys.findByHash(key.hash));
      expect(found?.key).toStrictEqual({ ...key, lastUsedAt: "2026-05-05T05:05:05.555Z" });
    });

    it("findById returns the key within its organization only", async () => {
      const { key } = await seedKey({ description: "d", expiresAt: "2027-01-01T00:00:00.000Z" });
      const { org: other } = await ctx.seedOrganization();
      const found = await ctx.storage().read((tx) => tx.apiKeys.findById(key.organizationId, key.id));
      expect(found).toStrictEqual(key);
      expectNoUndefined(found);
      expect(await ctx.storage().read((tx) => tx.apiKeys.findById(other.id, key.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.apiKeys.findById(key.organizationId, ctx.fixtures().ids.next("key")))).toBeNull();
    });

    it("update replaces the stored key, only within its organization", async () => {
      const { key, owner } = await seedKey();
      const { org: other } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      f.clock.advance(1000);
      const after: StoredApiKey = {
        ...key,
        name: "Renamed",
        description: "now described",
        tier: "enterprise",
        scopes: ["cases:read"],
        tlpClearance: 1,
        status: "suspended",
        expiresAt: "2027-06-01T00:00:00.000Z",
        lastUsedAt: "2026-02-02T00:00:00.000Z",
        updatedAt: f.at(),
      };
      await ctx.storage().transaction((tx) => tx.apiKeys.update({ ...after, organizationId: other.id, status: "active" }));
      expect(await ctx.storage().read((tx) => tx.apiKeys.findById(key.organizationId, key.id))).toStrictEqual(key);
      await ctx.storage().transaction((tx) => tx.apiKeys.update(after));
      expect(await ctx.storage().read((tx) => tx.apiKeys.findById(key.organizationId, key.id))).toStrictEqual(after);
      expect(await ctx.storage().read((tx) => tx.apiKeys.findByHash(key.hash))).toStrictEqual({ key: after, owner });
      const cleared: StoredApiKey = { ...after, description: null, expiresAt: null, lastUsedAt: null };
      await ctx.storage().transaction((tx) => tx.apiKeys.update(cleared));
      expect(await ctx.storage().read((tx) => tx.apiKeys.findById(key.organizationId, key.id))).toStrictEqual(cleared);
    });

    it("delete removes the key for good, only within its organization", async () => {
      const { key, owner } = await seedKey();
      const sibling = ctx.fixtures().apiKey(owner);
      await ctx.storage().transaction((tx) => tx.apiKeys.insert(sibling));
      const { org: other } = await ctx.seedOrganization();
      await ctx.storage().transaction((tx) => tx.apiKeys.delete(other.id, key.id));
      expect(await ctx.storage().read((tx) => tx.apiKeys.findById(key.organizationId, key.id))).toStrictEqual(key);

      await ctx.storage().transaction((tx) => tx.apiKeys.delete(key.organizationId, key.id));
      expect(await ctx.storage().read((tx) => tx.apiKeys.findById(key.organizationId, key.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.apiKeys.findByHash(key.hash))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.apiKeys.findById(key.organizationId, sibling.id))).toStrictEqual(sibling);
      // Deleting what is gone is not an error.
      await ctx.storage().transaction((tx) => tx.apiKeys.delete(key.organizationId, key.id));
    });
  });
}
