import { describe, expect, it } from "vitest";
import type { StoredUser } from "../../core/index.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined } from "./suite-context.js";

/** The account area's records: sessions (found by token hash) and sign-in throttles (by email). */
export function describeAccount(ctx: SuiteContext): void {
  describe("sessions", () => {
    it("insert then findByTokenHash returns the session and its owner, every field intact", async () => {
      const { user } = await ctx.seedOrganization();
      const session = ctx.fixtures().session(user);
      await ctx.storage().transaction((tx) => tx.sessions.insert(session));
      const found = await ctx.storage().read((tx) => tx.sessions.findByTokenHash(session.tokenHash));
      expect(found).toStrictEqual({ session, owner: user });
      expectNoUndefined(found);
    });

    it("findByTokenHash of an unknown hash, or a CSRF hash, is null", async () => {
      const { user } = await ctx.seedOrganization();
      const session = ctx.fixtures().session(user);
      await ctx.storage().transaction((tx) => tx.sessions.insert(session));
      expect(await ctx.storage().read((tx) => tx.sessions.findByTokenHash("no-such-hash"))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.sessions.findByTokenHash(session.csrfHash))).toBeNull();
    });

    it("the owner comes back as stored now, not as at sign-in", async () => {
      const { user } = await ctx.seedOrganization();
      const session = ctx.fixtures().session(user);
      await ctx.storage().transaction((tx) => tx.sessions.insert(session));
      const disabled: StoredUser = { ...user, status: "disabled", role: "read_only" };
      await ctx.storage().transaction((tx) => tx.users.update(disabled));
      expect(await ctx.storage().read((tx) => tx.sessions.findByTokenHash(session.tokenHash))).toStrictEqual({ session, owner: disabled });
    });

    it("a taken token hash is a conflict", async () => {
      const { user } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const session = f.session(user);
      await ctx.storage().transaction((tx) => tx.sessions.insert(session));
      await expectConflict(ctx.storage().transaction((tx) => tx.sessions.insert(f.session(user, { tokenHash: session.tokenHash }))));
    });

    it("delete removes the session, only within its organization", async () => {
      const { user } = await ctx.seedOrganization();
      const { org: other } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const session = f.session(user);
      const sibling = f.session(user);
      await ctx.storage().transaction(async (tx) => {
        await tx.sessions.insert(session);
        await tx.sessions.insert(sibling);
      });
      await ctx.storage().transaction((tx) => tx.sessions.delete(other.id, session.id));
      expect(await ctx.storage().read((tx) => tx.sessions.findByTokenHash(session.tokenHash))).not.toBeNull();
      await ctx.storage().transaction((tx) => tx.sessions.delete(user.organizationId, session.id));
      expect(await ctx.storage().read((tx) => tx.sessions.findByTokenHash(session.tokenHash))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.sessions.findByTokenHash(sibling.tokenHash))).toStrictEqual({ session: sibling, owner: user });
      await ctx.storage().transaction((tx) => tx.sessions.delete(user.organizationId, session.id));
    });

    it("deleteForUser ends every session of that user, only within its organization, and no one else's", async () => {
      const { org, user } = await ctx.seedOrganization();
      const { org: other } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const bystander = f.user(org.id);
      await ctx.storage().transaction((tx) => tx.users.insert(bystander));
      const mine = [f.session(user), f.session(user)];
      const theirs = f.session(bystander);
      await ctx.storage().transaction(async (tx) => {
        for (const session of [...mine, theirs]) await tx.sessions.insert(session);
      });
      await ctx.storage().transaction((tx) => tx.sessions.deleteForUser(other.id, user.id));
      for (const session of mine) expect(await ctx.storage().read((tx) => tx.sessions.findByTokenHash(session.tokenHash))).not.toBeNull();
      await ctx.storage().transaction((tx) => tx.sessions.deleteForUser(user.organizationId, user.id));
      for (const session of mine) expect(await ctx.storage().read((tx) => tx.sessions.findByTokenHash(session.tokenHash))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.sessions.findByTokenHash(theirs.tokenHash))).toStrictEqual({ session: theirs, owner: bystander });
      await ctx.storage().transaction((tx) => tx.sessions.deleteForUser(user.organizationId, user.id));
    });
  });

  describe("sign-in throttles", () => {
    const get = (email: string) => ctx.storage().read((tx) => tx.signInThrottles.get(email));

    it("get of an email never seen is null", async () => {
      expect(await get("nobody@example.test")).toBeNull();
    });

    it("put inserts, then replaces, the counter of that email only", async () => {
      const f = ctx.fixtures();
      const first = f.throttle("alice@example.test");
      const bystander = f.throttle("bob@example.test", { failures: 2 });
      await ctx.storage().transaction(async (tx) => {
        await tx.signInThrottles.put(first);
        await tx.signInThrottles.put(bystander);
      });
      const found = await get(first.email);
      expect(found).toStrictEqual(first);
      expectNoUndefined(found);

      f.clock.advance(60_000);
      const blocked = { ...first, failures: 5, windowStartedAt: f.at(), blockedUntil: "2026-02-01T10:00:00.000Z" };
      await ctx.storage().transaction((tx) => tx.signInThrottles.put(blocked));
      expect(await get(first.email)).toStrictEqual(blocked);
      const reset = { ...blocked, failures: 1, blockedUntil: null };
      await ctx.storage().transaction((tx) => tx.signInThrottles.put(reset));
      expect(await get(first.email)).toStrictEqual(reset);
      expect(await get(bystander.email)).toStrictEqual(bystander);
    });

    it("emails are keys as given: no case folding, no patterns", async () => {
      const f = ctx.fixtures();
      await ctx.storage().transaction((tx) => tx.signInThrottles.put(f.throttle("carol@example.test")));
      expect(await get("Carol@example.test")).toBeNull();
      expect(await get("%@example.test")).toBeNull();
    });

    it("clear removes the counter; clearing an unknown email is not an error", async () => {
      const f = ctx.fixtures();
      const kept = f.throttle("kept@example.test");
      await ctx.storage().transaction(async (tx) => {
        await tx.signInThrottles.put(f.throttle("dave@example.test", { failures: 3 }));
        await tx.signInThrottles.put(kept);
      });
      await ctx.storage().transaction((tx) => tx.signInThrottles.clear("dave@example.test"));
      expect(await get("dave@example.test")).toBeNull();
      expect(await get(kept.email)).toStrictEqual(kept);
      await ctx.storage().transaction((tx) => tx.signInThrottles.clear("dave@example.test"));
      // A counter can start again after being cleared.
      const again = f.throttle("dave@example.test");
      await ctx.storage().transaction((tx) => tx.signInThrottles.put(again));
      expect(await get("dave@example.test")).toStrictEqual(again);
    });
  });
}
