import { beforeEach, describe, expect, it } from "vitest";
import type { Organization, StoredUser } from "../../core/index.js";
import { verifyTlpChain } from "../../core/tlp/chain.js";
import type { TlpAuditEntry, TlpAuditFilter } from "../../core/tlp/types.js";
import { tlpActions, tlpResourceTypes } from "../../core/tlp/types.js";
import type { ChainHead, TlpEntryOverrides } from "./fixtures.js";
import { sleep } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectAppendOnlyRefusal, expectConflict, expectNoUndefined, idsOf, newestFirst, walkPages, withoutAuditGuards } from "./suite-context.js";

/** The TLP audit list semantics the port promises: the oracle of the filter tests. */
function entryMatches(entry: TlpAuditEntry, filter: TlpAuditFilter): boolean {
  const time = (iso: string) => Date.parse(iso);
  const anyOf = <T>(values: readonly T[] | undefined, value: T) => values === undefined || values.includes(value);
  return (
    anyOf(filter.resourceType, entry.resourceType) &&
    anyOf(filter.action, entry.action) &&
    (filter.resourceId === undefined || entry.resourceId === filter.resourceId) &&
    (filter.actorId === undefined || entry.actorUserId === filter.actorId || entry.actorKeyId === filter.actorId) &&
    (filter.outcome === undefined || entry.outcome === filter.outcome) &&
    (filter.from === undefined || time(entry.at) >= time(filter.from)) &&
    (filter.to === undefined || time(entry.at) < time(filter.to)) &&
    (filter.maxTlp === undefined || [entry.tlpBefore, entry.tlpAfter].every((tlp) => tlp === null || tlp <= filter.maxTlp!))
  );
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const hour = 3_600_000;

/**
 * The TLP audit log: a hash chain per organization whose head lives with the organization,
 * append-only (UPDATE and DELETE refused by the database), and tampering visible to the core's
 * verifier.
 */
export function describeTlpAudit(ctx: SuiteContext): void {
  const head = (organizationId: string) => ctx.storage().read((tx) => tx.tlpAudit.head(organizationId));
  const chain = (organizationId: string, afterSeq = 0, limit = 10_000) =>
    ctx.storage().read((tx) => tx.tlpAudit.chain(organizationId, afterSeq, limit));

  /** Appends `count` entries, each in a unit of its own that reads the head and extends it. */
  async function appendEach(organizationId: string, count: number, overrides: (i: number) => TlpEntryOverrides = () => ({})) {
    const f = ctx.fixtures();
    const appended: TlpAuditEntry[] = [];
    for (let i = 0; i < count; i++) {
      const entry = await ctx.storage().transaction(async (tx) => {
        const entry = f.tlpEntry(organizationId, await tx.tlpAudit.head(organizationId), overrides(i));
        await tx.tlpAudit.append(entry);
        return entry;
      });
      appended.push(entry);
    }
    return appended;
  }

  describe("TLP audit chain", () => {
    let org: Organization;
    let user: StoredUser;
    beforeEach(async () => {
      ({ org, user } = await ctx.seedOrganization());
    });

    it("head is { seq: 0, hash: '' } before the first entry, and for an unknown organization", async () => {
      expect(await head(org.id)).toEqual({ seq: 0, hash: "" });
      expect(await head(ctx.fixtures().ids.next("org"))).toEqual({ seq: 0, hash: "" });
      expect(await chain(org.id)).toEqual([]);
    });

    it("entries appended through head and append come back in chain order, every field intact, and verify", async () => {
      const f = ctx.fixtures();
      const key = f.ids.next("key");
      const appended = await appendEach(org.id, 7, (i) => {
        f.clock.advance(1234);
        return i === 3
          ? {
              actorUserId: user.id,
              actorKeyId: key,
              resourceType: "observable",
              action: "change",
              tlpBefore: 1,
              tlpAfter: 3,
              outcome: "denied",
              ip: "2001:db8::7",
              userAgent: "curl/8.5.0 «ünïcødé»",
              requestId: "req_0003",
            }
          : { tlpBefore: i % 2 ? null : 2, tlpAfter: null };
      });
      expect(appended.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const found = await chain(org.id);
      expect(found).toStrictEqual(appended);
      expectNoUndefined(found);
      expect(verifyTlpChain(found)).toEqual({ ok: true, checked: 7 });
      expect(await head(org.id)).toEqual({ seq: 7, hash: appended[6]!.hash });
    });

    it("chain reads from afterSeq + 1, at most limit entries, so a verifier can walk it in pages", async () => {
      const appended = await appendEach(org.id, 9);
      expect(await chain(org.id, 0, 4)).toStrictEqual(appended.slice(0, 4));
      expect(await chain(org.id, 4, 4)).toStrictEqual(appended.slice(4, 8));
      expect(await chain(org.id, 8, 4)).toStrictEqual(appended.slice(8));
      expect(await chain(org.id, 9, 4)).toEqual([]);
      expect(await chain(org.id, 0, 0)).toEqual([]);
      // Resuming verification from the last entry of a page checks the next page's link.
      const first = await chain(org.id, 0, 5);
      const last = first[first.length - 1]!;
      expect(verifyTlpChain(await chain(org.id, 5, 100), { seq: last.seq, hash: last.hash })).toEqual({ ok: true, checked: 4 });
    });

    it("each organization has a chain of its own, starting at 1, never showing another's entries", async () => {
      const { org: other } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const mine: TlpAuditEntry[] = [];
      const theirs: TlpAuditEntry[] = [];
      // Interleaved in one unit of work.
      await ctx.storage().transaction(async (tx) => {
        for (let i = 0; i < 6; i++) {
          const a = f.tlpEntry(org.id, await tx.tlpAudit.head(org.id));
          await tx.tlpAudit.append(a);
          mine.push(a);
          if (i % 2 === 0) {
            const b = f.tlpEntry(other.id, await tx.tlpAudit.head(other.id));
            await tx.tlpAudit.append(b);
            theirs.push(b);
          }
        }
      });
      expect(await chain(org.id)).toStrictEqual(mine);
      expect(await chain(other.id)).toStrictEqual(theirs);
      expect(theirs.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(await head(other.id)).toEqual({ seq: 3, hash: theirs[2]!.hash });
      expect(await chain(ctx.fixtures().ids.next("org"))).toEqual([]);
    });

    it("an entry that does not extend the head (a taken seq, a gap, a wrong link) is a conflict and writes nothing", async () => {
      const f = ctx.fixtures();
      const [first, second] = await appendEach(org.id, 2);
      const current: ChainHead = { seq: second!.seq, hash: second!.hash };
      const forks = [
        f.tlpEntry(org.id, { seq: first!.seq, hash: first!.hash }), // seq 2 again
        f.tlpEntry(org.id, { seq: current.seq + 1, hash: current.hash }), // seq 4: a gap
        f.tlpEntry(org.id, { seq: current.seq, hash: first!.hash }), // seq 3, linked to entry 1
      ];
      for (const fork of forks) {
        await expectConflict(ctx.storage().transaction((tx) => tx.tlpAudit.append(fork)));
      }
      expect(await chain(org.id)).toStrictEqual([first, second]);
      expect(await head(org.id)).toEqual(current);
    });

    it("appendMany writes a run of entries that extend the head in one call, and they verify", async () => {
      const f = ctx.fixtures();
      const [first] = await appendEach(org.id, 1);
      const run: TlpAuditEntry[] = [];
      let previous: ChainHead = { seq: first!.seq, hash: first!.hash };
      for (let i = 0; i < 250; i++) {
        const entry = f.tlpEntry(org.id, previous, { resourceType: "alert", action: "view", tlpBefore: 3, tlpAfter: 3 });
        run.push(entry);
        previous = { seq: entry.seq, hash: entry.hash };
      }
      await ctx.storage().transaction((tx) => tx.tlpAudit.appendMany(run));
      await ctx.storage().transaction((tx) => tx.tlpAudit.appendMany([]));
      const found = await chain(org.id);
      expect(found).toStrictEqual([first, ...run]);
      expect(verifyTlpChain(found)).toEqual({ ok: true, checked: 251 });
      expect(await head(org.id)).toEqual(previous);
    });

    it("appendMany with a gap, a fork or another organization's entry anywhere in the run is a conflict and writes nothing", async () => {
      const f = ctx.fixtures();
      const { org: other } = await ctx.seedOrganization();
      const [first] = await appendEach(org.id, 1);
      const start: ChainHead = { seq: first!.seq, hash: first!.hash };
      const a = f.tlpEntry(org.id, start);
      const b = f.tlpEntry(org.id, { seq: a.seq, hash: a.hash });
      const runs = [
        [a, f.tlpEntry(org.id, { seq: b.seq, hash: b.hash })], // the second skips b: a gap
        [a, f.tlpEntry(org.id, start)], // the second forks from the head again
        [f.tlpEntry(org.id, { seq: 0, hash: "" }), a], // the first does not extend the head
        [a, { ...f.tlpEntry(other.id, { seq: a.seq, hash: a.hash }) }], // another organization's entry
      ];
      for (const run of runs) {
        await expectConflict(ctx.storage().transaction((tx) => tx.tlpAudit.appendMany(run)));
      }
      expect(await chain(org.id)).toStrictEqual([first]);
      expect(await chain(other.id)).toEqual([]);
      expect(await head(org.id)).toEqual(start);
    });

    it("a unit that appends and then fails leaves neither the entry nor a moved head", async () => {
      const [first] = await appendEach(org.id, 1);
      const fault = new Error("injected");
      await expect(
        ctx.storage().transaction(async (tx) => {
          await tx.tlpAudit.append(ctx.fixtures().tlpEntry(org.id, await tx.tlpAudit.head(org.id)));
          expect((await tx.tlpAudit.head(org.id)).seq).toBe(2); // the unit sees its own append
          throw fault;
        }),
      ).rejects.toBe(fault);
      expect(await chain(org.id)).toStrictEqual([first]);
      expect(await head(org.id)).toEqual({ seq: 1, hash: first!.hash });
    });

    it("N concurrent units, each reading the head and appending, yield seq 1..N and a valid chain", async () => {
      const { org: other } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const units = 24;
      const run = (organizationId: string, i: number) =>
        ctx.storage().transaction(async (tx) => {
          await sleep(i % 2);
          const current = await tx.tlpAudit.head(organizationId);
          await sleep(1); // another writer would fork the chain here if the head were not held
          await tx.tlpAudit.append(f.tlpEntry(organizationId, current, { requestId: `unit-${i}` }));
          await sleep(i % 3);
          if (i % 5 === 4) throw new Error(`unit ${i} fails after appending`);
        });
      const settled = await Promise.allSettled(range(units).flatMap((i) => [run(org.id, i), run(other.id, i)]));
      const failures = range(units).filter((i) => i % 5 === 4);
      expect(settled.filter((s) => s.status === "rejected")).toHaveLength(2 * failures.length);
      for (const organizationId of [org.id, other.id]) {
        const entries = await chain(organizationId);
        const survivors = units - failures.length;
        expect(entries.map((e) => e.seq)).toEqual(range(survivors).map((i) => i + 1));
        expect(verifyTlpChain(entries)).toEqual({ ok: true, checked: survivors });
        expect(entries.map((e) => e.requestId).sort()).toEqual(
          range(units)
            .filter((i) => i % 5 !== 4)
            .map((i) => `unit-${i}`)
            .sort(),
        );
        expect(await head(organizationId)).toEqual({ seq: survivors, hash: entries[survivors - 1]!.hash });
      }
    });

    // What a case update does: rows referencing the organization first (an audit entry, an event,
    // a case number), then the chain head. On PostgreSQL each reference holds a KEY SHARE lock on
    // the organization's row; a head locked FOR UPDATE would wait on the others' and they on its:
    // a deadlock that failed concurrent PATCHes with 500s. The head must not conflict with them.
    it("concurrent units that write rows referencing the organization before taking the head all commit", async () => {
      const f = ctx.fixtures();
      const units = 16;
      const settled = await Promise.allSettled(
        range(units).map((i) =>
          ctx.storage().transaction(async (tx) => {
            await tx.audit.append(f.auditEntry(org.id, { requestId: `unit-${i}` }));
            await tx.events.append(f.event(org.id));
            await sleep(i % 3); // the others take their references meanwhile
            const current = await tx.tlpAudit.head(org.id);
            await tx.tlpAudit.append(f.tlpEntry(org.id, current, { requestId: `unit-${i}` }));
            await tx.organizations.nextCaseNumber(org.id);
          }),
        ),
      );
      expect(settled.filter((s) => s.status === "rejected").map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      const entries = await chain(org.id);
      expect(entries.map((e) => e.seq)).toEqual(range(units).map((i) => i + 1));
      expect(verifyTlpChain(entries)).toEqual({ ok: true, checked: units });
    });
  });

  describe("TLP audit log is append-only and tamper-evident", () => {
    let org: Organization;
    let entries: TlpAuditEntry[];
    beforeEach(async () => {
      ({ org } = await ctx.seedOrganization());
      entries = await appendEach(org.id, 5);
    });


    it("the database refuses UPDATE of an entry, whatever the column", async () => {
      const middle = entries[2]!;
      await expectAppendOnlyRefusal(ctx.raw(), "UPDATE tlp_audit_log SET resource_id = ? WHERE organization_id = ? AND id = ?", ["case_forged", org.id, middle.id]);
      await expectAppendOnlyRefusal(ctx.raw(), "UPDATE tlp_audit_log SET outcome = 'allowed', hash = ? WHERE organization_id = ? AND id = ?", ["0", org.id, middle.id]);
      await expectAppendOnlyRefusal(ctx.raw(), "UPDATE tlp_audit_log SET seq = seq + 100 WHERE organization_id = ?", [org.id]);
      expect(await chain(org.id)).toStrictEqual(entries);
    });

    it("the database refuses DELETE of an entry, one or all", async () => {
      await expectAppendOnlyRefusal(ctx.raw(), "DELETE FROM tlp_audit_log WHERE organization_id = ? AND id = ?", [org.id, entries[4]!.id]);
      await expectAppendOnlyRefusal(ctx.raw(), "DELETE FROM tlp_audit_log WHERE organization_id = ?", [org.id]);
      expect(await chain(org.id)).toStrictEqual(entries);
      expect(verifyTlpChain(await chain(org.id))).toEqual({ ok: true, checked: 5 });
    });

    it("a changed field in a middle entry is found: verification names exactly that entry (hash)", async () => {
      const { org: other } = await ctx.seedOrganization();
      const theirs = await appendEach(other.id, 3);
      const middle = entries[2]!;
      await withoutAuditGuards(ctx.raw(), () =>
        ctx.raw().exec("UPDATE tlp_audit_log SET resource_id = ? WHERE organization_id = ? AND id = ?", ["case_forged", org.id, middle.id]),
      );
      const found = await chain(org.id);
      expect(found[2]).toStrictEqual({ ...middle, resourceId: "case_forged" });
      expect(verifyTlpChain(found)).toEqual({ ok: false, checked: 3, firstBad: { id: middle.id, seq: 3, reason: "hash" } });
      // Another organization's chain is untouched, and the guards are back.
      expect(verifyTlpChain(await chain(other.id))).toEqual({ ok: true, checked: theirs.length });
      await expectAppendOnlyRefusal(ctx.raw(), "UPDATE tlp_audit_log SET resource_id = ? WHERE organization_id = ? AND id = ?", [middle.resourceId, org.id, middle.id]);
    });

    it("a deleted middle entry is found: the next entry is out of sequence", async () => {
      await withoutAuditGuards(ctx.raw(), () =>
        ctx.raw().exec("DELETE FROM tlp_audit_log WHERE organization_id = ? AND id = ?", [org.id, entries[1]!.id]),
      );
      expect(verifyTlpChain(await chain(org.id))).toEqual({ ok: false, checked: 2, firstBad: { id: entries[2]!.id, seq: 3, reason: "sequence" } });
    });

    it("a deleted last entry is found: the chain no longer reaches the organization's head", async () => {
      await withoutAuditGuards(ctx.raw(), () =>
        ctx.raw().exec("DELETE FROM tlp_audit_log WHERE organization_id = ? AND id = ?", [org.id, entries[4]!.id]),
      );
      const found = await chain(org.id);
      // What is left is a valid chain on its own …
      expect(verifyTlpChain(found)).toEqual({ ok: true, checked: 4 });
      // … but the head still records the removed entry.
      const current = await head(org.id);
      expect(current).toEqual({ seq: 5, hash: entries[4]!.hash });
      expect(current.seq).toBeGreaterThan(found[found.length - 1]!.seq);
    });
  });

  describe("tlpAudit.list", () => {
    let org: Organization;
    let other: Organization;
    let mine: TlpAuditEntry[];
    let theirs: TlpAuditEntry[];
    let actors: { users: string[]; keys: string[]; resources: string[] };

    beforeEach(async () => {
      const f = ctx.fixtures();
      ({ org } = await ctx.seedOrganization());
      ({ org: other } = await ctx.seedOrganization());
      actors = {
        users: [f.ids.next("user"), f.ids.next("user")],
        keys: [f.ids.next("key"), f.ids.next("key")],
        resources: [f.ids.next("case"), f.ids.next("case"), f.ids.next("task")],
      };
      const shape = (i: number): TlpEntryOverrides => ({
        resourceType: tlpResourceTypes[i % tlpResourceTypes.length]!,
        resourceId: actors.resources[i % 3]!,
        action: tlpActions[i % tlpActions.length]!,
        actorUserId: [actors.users[0]!, actors.users[1]!, null][i % 3]!,
        actorKeyId: [actors.keys[0]!, null, actors.keys[1]!, null][i % 4]!,
        outcome: i % 3 === 2 ? "denied" : "allowed",
        // Every pair of markings a log holds: none before (a creation), raised, lowered, kept.
        tlpBefore: [null, 0, 1, 2, 3, 4][i % 6]!,
        tlpAfter: [0, 1, 2, 3, 4][i % 5]!,
      });
      mine = [];
      theirs = [];
      await ctx.storage().transaction(async (tx) => {
        for (let i = 0; i < 36; i++) {
          f.clock.advance(hour);
          const entry = f.tlpEntry(org.id, await tx.tlpAudit.head(org.id), shape(i));
          await tx.tlpAudit.append(entry);
          mine.push(entry);
          // Look-alikes in another organization: same actors and resources, same times.
          if (i % 3 === 0) {
            const look = f.tlpEntry(other.id, await tx.tlpAudit.head(other.id), shape(i));
            await tx.tlpAudit.append(look);
            theirs.push(look);
          }
        }
      });
    });

    const list = (organizationId: string, filter: TlpAuditFilter, limit = 1000) =>
      ctx.storage().read((tx) => tx.tlpAudit.list(organizationId, filter, { limit }));

    async function expectList(filter: TlpAuditFilter): Promise<TlpAuditEntry[]> {
      const expected = newestFirst(mine.filter((e) => entryMatches(e, filter)));
      const found = await list(org.id, filter);
      expect(idsOf(found)).toEqual(idsOf(expected));
      expect(found).toStrictEqual(expected);
      return found;
    }

    it("with no filter returns every entry of the organization, newest first, every field intact", async () => {
      const found = await expectList({});
      expect(found).toHaveLength(36);
      expectNoUndefined(found);
    });

    it.each<[string, (a: typeof actors) => TlpAuditFilter]>([
      ["resourceType, one value", () => ({ resourceType: ["task"] })],
      ["resourceType, any of several", () => ({ resourceType: ["case", "evidence"] })],
      ["action, one value", () => ({ action: ["export"] })],
      ["action, any of several", () => ({ action: ["view", "change"] })],
      ["resourceId", (a) => ({ resourceId: a.resources[1]! })],
      ["actorId naming a user", (a) => ({ actorId: a.users[0]! })],
      ["actorId naming a key", (a) => ({ actorId: a.keys[1]! })],
      ["outcome allowed", () => ({ outcome: "allowed" })],
      ["outcome denied", () => ({ outcome: "denied" })],
      ["every member together", (a) => ({ resourceType: ["case", "alert", "task", "comment"], action: ["view", "edit", "delete"], resourceId: a.resources[0]!, actorId: a.users[0]!, outcome: "allowed" })],
    ])("filter: %s", async (_label, build) => {
      expect((await expectList(build(actors))).length).toBeGreaterThan(0);
    });

    it("maxTlp leaves out every entry whose TLP before or after is above it (a null marking never does)", async () => {
      for (const maxTlp of [-1, 0, 1, 2, 3, 4]) {
        const found = await expectList({ maxTlp });
        expect(found.every((e) => (e.tlpBefore ?? -1) <= maxTlp && e.tlpAfter! <= maxTlp)).toBe(true);
      }
      expect(await expectList({ maxTlp: 4 })).toHaveLength(36);
      expect(await expectList({ maxTlp: -1 })).toEqual([]);
      expect((await expectList({ maxTlp: 2, action: ["view", "change"] })).length).toBeGreaterThan(0);
      const paged = idsOf(newestFirst(mine.filter((e) => entryMatches(e, { maxTlp: 2 }))));
      expect(await walkPages((page) => ctx.storage().read((tx) => tx.tlpAudit.list(org.id, { maxTlp: 2 }, page)), 3)).toEqual(paged);
    });

    it("actorId matches the acting user or the acting key, never another column", async () => {
      const byUser = await expectList({ actorId: actors.users[0]! });
      expect(byUser.every((e) => e.actorUserId === actors.users[0])).toBe(true);
      const byKey = await expectList({ actorId: actors.keys[0]! });
      expect(byKey.every((e) => e.actorKeyId === actors.keys[0])).toBe(true);
      expect(await list(org.id, { actorId: actors.resources[0]! })).toEqual([]);
      expect(await list(org.id, { actorId: org.id })).toEqual([]);
    });

    it("from is inclusive and to exclusive, and both accept other ISO 8601 forms of the instant", async () => {
      const lower = mine[5]!;
      const upper = mine[20]!;
      const from = await expectList({ from: lower.at });
      expect(idsOf(from)).toContain(lower.id);
      expect(from).toHaveLength(31);
      const to = await expectList({ to: upper.at });
      expect(idsOf(to)).not.toContain(upper.id);
      expect(to).toHaveLength(20);
      expect(await expectList({ from: lower.at, to: upper.at })).toHaveLength(15);
      // The same instants with an offset and without milliseconds.
      const shifted = (iso: string) => new Date(Date.parse(iso) + 2 * hour).toISOString().slice(0, 19) + "+02:00";
      const found = await list(org.id, { from: shifted(lower.at), to: shifted(upper.at) });
      expect(idsOf(found)).toEqual(idsOf(newestFirst(mine.slice(5, 20))));
    });

    it("an unparseable bound is a validation error naming the field", async () => {
      const error = await list(org.id, { from: "yesterday" }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: "CaseKitError", code: "validation_failed" });
      expect((error as Error).message).toMatch(/^from\b/);
    });

    it("an empty any-of list, or limit 0, matches nothing", async () => {
      expect(await list(org.id, { resourceType: [] })).toEqual([]);
      expect(await list(org.id, { action: [] })).toEqual([]);
      expect(await list(org.id, {}, 0)).toEqual([]);
    });

    it("keyset paging walks every page: no duplicates, no gaps, newest first", async () => {
      const filters: TlpAuditFilter[] = [{}, { outcome: "allowed", action: ["view", "edit"] }, { actorId: actors.keys[0]! }];
      for (const filter of filters) {
        const expected = idsOf(newestFirst(mine.filter((e) => entryMatches(e, filter))));
        for (const size of [1, 4, 100]) {
          expect(await walkPages((page) => ctx.storage().read((tx) => tx.tlpAudit.list(org.id, filter, page)), size)).toEqual(expected);
        }
      }
    });

    it("never returns another organization's entries, whatever the filter", async () => {
      expect(idsOf(await list(other.id, {}))).toEqual(idsOf(newestFirst(theirs)));
      const found = await list(other.id, { actorId: actors.users[0]!, resourceId: actors.resources[0]! });
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((e) => e.organizationId === other.id)).toBe(true);
      expect(await list(ctx.fixtures().ids.next("org"), {})).toEqual([]);
    });
  });
}
