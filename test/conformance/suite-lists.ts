import { beforeEach, describe, expect, it } from "vitest";
import type { ApiKeyFilter, KeyStatus, KeyTier, Organization, StoredApiKey, StoredUser, UserFilter, UserRole, UserStatus } from "../../core/index.js";
import { shuffled } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectNoUndefined, idsOf, newestFirst, walkPages } from "./suite-context.js";

/** The list semantics the port promises, written out plainly: the oracles of the filter tests. */
const anyOf = <T>(values: readonly T[] | undefined, value: T) => values === undefined || values.includes(value);

function userMatches(user: StoredUser, filter: UserFilter): boolean {
  return anyOf(filter.status, user.status) && anyOf(filter.role, user.role) && (filter.email === undefined || user.email === filter.email);
}

function keyMatches(key: StoredApiKey, filter: ApiKeyFilter): boolean {
  return anyOf(filter.status, key.status) && anyOf(filter.tier, key.tier) && (filter.userId === undefined || key.userId === filter.userId);
}

const statuses: UserStatus[] = ["active", "disabled", "locked", "deleted"];
const roles: UserRole[] = ["admin", "analyst", "read_only"];
const keyStatuses: KeyStatus[] = ["active", "suspended", "revoked"];
const tiers: KeyTier[] = ["basic", "standard", "professional", "enterprise", "unlimited"];

/** users.list and apiKeys.list: every filter against the oracle, paging, tenant isolation. */
export function describeLists(ctx: SuiteContext): void {
  describe("users.list", () => {
    let org: Organization;
    let other: Organization;
    let mine: StoredUser[];
    let theirs: StoredUser[];

    beforeEach(async () => {
      const f = ctx.fixtures();
      const seeded = await ctx.seedOrganization();
      org = seeded.org;
      const seededOther = await ctx.seedOrganization();
      other = seededOther.org;
      mine = [seeded.user];
      theirs = [seededOther.user];
      for (let i = 0; i < 26; i++) {
        const status = statuses[i % 4]!;
        const role = roles[i % 3]!;
        mine.push(f.user(org.id, { status, role, passwordHash: i % 2 ? "scrypt$x" : null }));
        // Look-alikes in another organization, interleaved in id with ours.
        if (i % 2 === 0) theirs.push(f.user(other.id, { status, role }));
      }
      await ctx.storage().transaction(async (tx) => {
        for (const user of shuffled([...mine.slice(1), ...theirs.slice(1)])) await tx.users.insert(user);
      });
    });

    const list = (organizationId: string, filter: UserFilter, limit = 1000, beforeId?: string) =>
      ctx.storage().read((tx) => tx.users.list(organizationId, filter, beforeId === undefined ? { limit } : { limit, beforeId }));

    async function expectList(filter: UserFilter): Promise<StoredUser[]> {
      const expected = newestFirst(mine.filter((u) => userMatches(u, filter)));
      const found = await list(org.id, filter);
      expect(idsOf(found)).toEqual(idsOf(expected));
      expect(found).toStrictEqual(expected);
      return found;
    }

    it("with no filter returns every user of the organization, newest first, every field intact", async () => {
      const found = await expectList({});
      expect(found).toHaveLength(27);
      expectNoUndefined(found);
    });

    it.each<[string, () => UserFilter]>([
      ["status, one value", () => ({ status: ["locked"] })],
      ["status, any of several", () => ({ status: ["active", "deleted"] })],
      ["role, one value", () => ({ role: ["read_only"] })],
      ["role, any of several", () => ({ role: ["admin", "analyst"] })],
      ["status and role together", () => ({ status: ["active", "disabled"], role: ["analyst"] })],
    ])("filter: %s", async (_label, build) => {
      expect((await expectList(build())).length).toBeGreaterThan(0);
    });

    it("email matches one address exactly, in this organization only", async () => {
      const target = mine[7]!;
      expect(await expectList({ email: target.email })).toStrictEqual([target]);
      expect(await expectList({ email: target.email, status: [target.status] })).toStrictEqual([target]);
      expect(await list(org.id, { email: target.email, status: statuses.filter((s) => s !== target.status) })).toEqual([]);
      expect(await list(org.id, { email: theirs[1]!.email })).toEqual([]);
      expect(await list(org.id, { email: "%" })).toEqual([]);
      expect(await list(org.id, { email: target.email.slice(0, -1) })).toEqual([]);
    });

    it("an empty any-of list matches nothing; limit 0 fetches nothing", async () => {
      expect(await list(org.id, { status: [] })).toEqual([]);
      expect(await list(org.id, { role: [] })).toEqual([]);
      expect(await list(org.id, {}, 0)).toEqual([]);
    });

    it("keyset paging walks every page: no duplicates, no gaps, newest first", async () => {
      for (const filter of [{}, { status: ["active", "locked"] } satisfies UserFilter]) {
        const expected = idsOf(newestFirst(mine.filter((u) => userMatches(u, filter))));
        for (const size of [1, 4, 50]) {
          expect(await walkPages((page) => ctx.storage().read((tx) => tx.users.list(org.id, filter, page)), size)).toEqual(expected);
        }
      }
      // A cursor taken from another organization's user still shows only ours.
      const foreign = newestFirst(theirs)[2]!.id;
      expect(idsOf(await list(org.id, {}, 1000, foreign))).toEqual(idsOf(newestFirst(mine).filter((u) => u.id < foreign)));
    });

    it("never returns another organization's users", async () => {
      expect(idsOf(await list(other.id, {}))).toEqual(idsOf(newestFirst(theirs)));
      expect(await list(ctx.fixtures().ids.next("org"), {})).toEqual([]);
    });
  });

  describe("apiKeys.list", () => {
    let org: Organization;
    let other: Organization;
    let owners: StoredUser[];
    let mine: StoredApiKey[];
    let theirs: StoredApiKey[];

    beforeEach(async () => {
      const f = ctx.fixtures();
      const seeded = await ctx.seedOrganization();
      org = seeded.org;
      const seededOther = await ctx.seedOrganization();
      other = seededOther.org;
      const second = f.user(org.id);
      await ctx.storage().transaction((tx) => tx.users.insert(second));
      owners = [seeded.user, second];
      mine = [];
      theirs = [];
      for (let i = 0; i < 24; i++) {
        mine.push(
          f.apiKey(owners[i % 2]!, {
            status: keyStatuses[i % 3]!,
            tier: tiers[i % 5]!,
            expiresAt: i % 4 ? null : "2027-01-01T00:00:00.000Z",
          }),
        );
        if (i % 3 === 0) theirs.push(f.apiKey(seededOther.user, { status: keyStatuses[i % 3]!, tier: tiers[i % 5]! }));
      }
      await ctx.storage().transaction(async (tx) => {
        for (const key of shuffled([...mine, ...theirs])) await tx.apiKeys.insert(key);
      });
    });

    const list = (organizationId: string, filter: ApiKeyFilter, limit = 1000, beforeId?: string) =>
      ctx.storage().read((tx) => tx.apiKeys.list(organizationId, filter, beforeId === undefined ? { limit } : { limit, beforeId }));

    async function expectList(filter: ApiKeyFilter): Promise<StoredApiKey[]> {
      const expected = newestFirst(mine.filter((k) => keyMatches(k, filter)));
      const found = await list(org.id, filter);
      expect(idsOf(found)).toEqual(idsOf(expected));
      expect(found).toStrictEqual(expected);
      return found;
    }

    it("with no filter returns every key of the organization, newest first, every field intact", async () => {
      const found = await expectList({});
      expect(found).toHaveLength(24);
      expectNoUndefined(found);
    });

    it.each<[string, (owners: StoredUser[]) => ApiKeyFilter]>([
      ["status, one value", () => ({ status: ["revoked"] })],
      ["status, any of several", () => ({ status: ["active", "suspended"] })],
      ["tier, one value", () => ({ tier: ["enterprise"] })],
      ["tier, any of several", () => ({ tier: ["basic", "unlimited", "standard"] })],
      ["userId", (o) => ({ userId: o[1]!.id })],
      ["every member together", (o) => ({ status: ["active", "revoked"], tier: ["basic", "standard", "professional"], userId: o[0]!.id })],
    ])("filter: %s", async (_label, build) => {
      expect((await expectList(build(owners))).length).toBeGreaterThan(0);
    });

    it("userId of another organization's user, an empty any-of list or limit 0 match nothing", async () => {
      expect(await list(org.id, { userId: theirs[0]!.userId })).toEqual([]);
      expect(await list(org.id, { status: [] })).toEqual([]);
      expect(await list(org.id, { tier: [] })).toEqual([]);
      expect(await list(org.id, {}, 0)).toEqual([]);
    });

    it("keyset paging walks every page: no duplicates, no gaps, newest first", async () => {
      for (const filter of [{}, { status: ["active"] } satisfies ApiKeyFilter, { userId: owners[0]!.id }]) {
        const expected = idsOf(newestFirst(mine.filter((k) => keyMatches(k, filter))));
        for (const size of [1, 5, 50]) {
          expect(await walkPages((page) => ctx.storage().read((tx) => tx.apiKeys.list(org.id, filter, page)), size)).toEqual(expected);
        }
      }
    });

    it("never returns another organization's keys", async () => {
      expect(idsOf(await list(other.id, {}))).toEqual(idsOf(newestFirst(theirs)));
      expect(await list(other.id, { userId: owners[0]!.id })).toEqual([]);
    });
  });
}
