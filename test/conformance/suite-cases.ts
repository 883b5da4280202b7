import { beforeEach, describe, expect, it } from "vitest";
import type { Case, CaseFilter, CaseStatus, Organization, StoredUser } from "../../core/index.js";
import { shuffled } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined } from "./suite-context.js";

/** The list semantics the port promises, written out plainly: the oracle for every filter test. */
function matches(record: Case, filter: CaseFilter): boolean {
  const time = (iso: string) => Date.parse(iso);
  const anyOf = <T>(values: readonly T[] | undefined, value: T) => values === undefined || values.includes(value);
  return (
    record.tlp <= filter.maxTlp &&
    anyOf(filter.statusValue, record.statusValue) &&
    anyOf(filter.severity, record.severity) &&
    anyOf(filter.tlp, record.tlp) &&
    (filter.assigneeId === undefined || (record.assigneeId !== null && filter.assigneeId.includes(record.assigneeId))) &&
    (filter.source === undefined || (record.source !== null && filter.source.includes(record.source))) &&
    (filter.typeValue === undefined || (record.typeValue !== null && filter.typeValue.includes(record.typeValue))) &&
    (filter.tag === undefined || record.tags.some((tag) => filter.tag!.includes(tag.name))) &&
    (filter.createdAfter === undefined || time(record.createdAt) > time(filter.createdAfter)) &&
    (filter.createdBefore === undefined || time(record.createdAt) < time(filter.createdBefore))
  );
}

const newestFirst = (records: Case[]) => [...records].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
const idsOf = (records: Case[]) => records.map((r) => r.id);

const statuses: CaseStatus[] = ["new", "in_progress", "on_hold", "resolved", "closed"];
const oddTag = `it's 100%_"odd" \\ ☕`;
const tagSets = [[], [{ name: "ransomware" }], [{ name: "apt", color: "#ff0000" }, { name: "ransomware" }], [{ name: oddTag }], [{ name: "phish" }]];

/** Cases: round trips, conflicts, update, and list with every filter and keyset paging. */
export function describeCases(ctx: SuiteContext): void {
  describe("cases", () => {
    let org: Organization;
    let user: StoredUser;
    beforeEach(async () => {
      ({ org, user } = await ctx.seedOrganization());
    });

    it("insert then findById returns the record exactly, JSON fields included", async () => {
      const f = ctx.fixtures();
      const { org: partner } = await ctx.seedOrganization();
      const record = f.caseRecord(org.id, {
        title: "Beacon to 203.0.113.7 — «urgent» 🚨",
        severity: 4,
        description: "Line one\nLine two\ttabbed \"quoted\" 'single' \\ backslash \u0001\u001f </script>",
        tlp: 3,
        pap: 1,
        statusValue: "on_hold",
        typeValue: "malware",
        assigneeId: user.id,
        clientId: "client-42",
        source: "edr",
        sourceRef: "EDR-2026-0001",
        tags: [{ name: "ransomware", color: "#a0b1c2" }, { name: "apt" }, { name: "ünïcødé 日本" }],
        teams: [{ id: "team_0000000000000000000000000a" }, { id: "team_0000000000000000000000000b" }],
        organizations: [partner.id],
        customFields: {
          text: "x".repeat(60_000),
          int: 9_007_199_254_740_991,
          negative: -17,
          float: 1.5,
          zero: 0,
          yes: true,
          no: false,
          nothing: null,
          list: [1, "two", { three: [3] }, [], {}],
          nested: { deeper: { deepest: ["é", "😀", "\u00e9\u0301"] } },
          empty: {},
        },
        closedAt: "2026-02-03T04:05:06.789Z",
        createdBy: user.id,
      });
      await ctx.storage().transaction((tx) => tx.cases.insert(record));
      const found = await ctx.storage().read((tx) => tx.cases.findById(org.id, record.id));
      expect(found).toStrictEqual(record);
      expectNoUndefined(found);
      // Lists may read rows another way than findById: the record must come back the same.
      const listed = await ctx.storage().read((tx) => tx.cases.list(org.id, { maxTlp: 4 }, { limit: 10 }));
      expect(listed).toStrictEqual([record]);
      expectNoUndefined(listed);
    });

    it("absent optional values come back as null and empty JSON values as empty", async () => {
      const record = ctx.fixtures().caseRecord(org.id);
      await ctx.storage().transaction((tx) => tx.cases.insert(record));
      const found = await ctx.storage().read((tx) => tx.cases.findById(org.id, record.id));
      expect(found).toStrictEqual(record);
      expect(found?.tags).toEqual([]);
      expect(found?.customFields).toEqual({});
      expectNoUndefined(found);
    });

    it("findById with another organization's id, or an unknown id, is null", async () => {
      const record = ctx.fixtures().caseRecord(org.id);
      await ctx.storage().transaction((tx) => tx.cases.insert(record));
      const { org: other } = await ctx.seedOrganization();
      expect(await ctx.storage().read((tx) => tx.cases.findById(other.id, record.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.cases.findById(org.id, ctx.fixtures().ids.next("case")))).toBeNull();
    });

    it("findMany answers the organization's cases among the ids, records intact, never another organization's", async () => {
      const f = ctx.fixtures();
      const { org: other } = await ctx.seedOrganization();
      const mine = [f.caseRecord(org.id, { tlp: 4 }), f.caseRecord(org.id, { tlp: 1 }), f.caseRecord(org.id)];
      const theirs = f.caseRecord(other.id);
      await ctx.storage().transaction(async (tx) => {
        for (const record of [...mine, theirs]) await tx.cases.insert(record);
      });
      const found = await ctx.storage().read((tx) => tx.cases.findMany(org.id, [mine[0]!.id, theirs.id, mine[1]!.id, f.ids.next("case")]));
      expect(newestFirst(found)).toStrictEqual(newestFirst([mine[0]!, mine[1]!]));
      expect(await ctx.storage().read((tx) => tx.cases.findMany(org.id, []))).toEqual([]);
    });

    it("a taken (organization, number) is a conflict; the same number in another organization is not", async () => {
      const f = ctx.fixtures();
      const first = f.caseRecord(org.id, { number: 7 });
      await ctx.storage().transaction((tx) => tx.cases.insert(first));
      const clash = f.caseRecord(org.id, { number: 7 });
      await expectConflict(ctx.storage().transaction((tx) => tx.cases.insert(clash)));
      expect(await ctx.storage().read((tx) => tx.cases.findById(org.id, clash.id))).toBeNull();

      const { org: other } = await ctx.seedOrganization();
      const elsewhere = f.caseRecord(other.id, { number: 7 });
      await ctx.storage().transaction((tx) => tx.cases.insert(elsewhere));
      expect(await ctx.storage().read((tx) => tx.cases.findById(other.id, elsewhere.id))).toStrictEqual(elsewhere);
    });

    it("a taken id is a conflict", async () => {
      const f = ctx.fixtures();
      const first = f.caseRecord(org.id);
      await ctx.storage().transaction((tx) => tx.cases.insert(first));
      await expectConflict(ctx.storage().transaction((tx) => tx.cases.insert({ ...f.caseRecord(org.id), id: first.id })));
    });

    it("update replaces the stored record and returns true", async () => {
      const f = ctx.fixtures();
      const before = f.caseRecord(org.id, { tags: [{ name: "old" }], customFields: { a: 1 } });
      await ctx.storage().transaction((tx) => tx.cases.insert(before));
      f.clock.advance(60_000);
      const after: Case = {
        ...before,
        title: "Renamed",
        severity: 3,
        description: "now described",
        statusValue: "closed",
        assigneeId: user.id,
        tags: [{ name: "new", color: "#000000" }],
        teams: [{ id: "team_0000000000000000000000000c" }],
        customFields: { b: { c: [true] } },
        closedAt: f.at(),
        updatedAt: f.at(),
      };
      expect(await ctx.storage().transaction((tx) => tx.cases.update(after))).toBe(true);
      expect(await ctx.storage().read((tx) => tx.cases.findById(org.id, before.id))).toStrictEqual(after);

      const cleared: Case = { ...after, description: null, assigneeId: null, closedAt: null, tags: [], customFields: {} };
      expect(await ctx.storage().transaction((tx) => tx.cases.update(cleared))).toBe(true);
      expect(await ctx.storage().read((tx) => tx.cases.findById(org.id, before.id))).toStrictEqual(cleared);
    });

    it("update of another organization's case, or an unknown one, returns false and changes nothing", async () => {
      const f = ctx.fixtures();
      const record = f.caseRecord(org.id);
      await ctx.storage().transaction((tx) => tx.cases.insert(record));
      const { org: other } = await ctx.seedOrganization();
      const hijack: Case = { ...record, organizationId: other.id, title: "Hijacked" };
      expect(await ctx.storage().transaction((tx) => tx.cases.update(hijack))).toBe(false);
      expect(await ctx.storage().read((tx) => tx.cases.findById(org.id, record.id))).toStrictEqual(record);
      expect(await ctx.storage().read((tx) => tx.cases.findById(other.id, record.id))).toBeNull();
      expect(await ctx.storage().transaction((tx) => tx.cases.update(f.caseRecord(org.id)))).toBe(false);
    });

    it("an update that takes another case's number is a conflict", async () => {
      const f = ctx.fixtures();
      const one = f.caseRecord(org.id);
      const two = f.caseRecord(org.id);
      await ctx.storage().transaction(async (tx) => {
        await tx.cases.insert(one);
        await tx.cases.insert(two);
      });
      await expectConflict(ctx.storage().transaction((tx) => tx.cases.update({ ...two, number: one.number })));
      expect(await ctx.storage().read((tx) => tx.cases.findById(org.id, two.id))).toStrictEqual(two);
    });
  });

  describe("cases.findSharedWith", () => {
    it("finds another organization's case that lists the viewer, record intact", async () => {
      const f = ctx.fixtures();
      const { org: owner } = await ctx.seedOrganization();
      const { org: viewer } = await ctx.seedOrganization();
      const { org: third } = await ctx.seedOrganization();
      const shared = f.caseRecord(owner.id, { organizations: [third.id, viewer.id], tags: [{ name: "apt" }], customFields: { a: [1] } });
      await ctx.storage().transaction((tx) => tx.cases.insert(shared));
      const found = await ctx.storage().read((tx) => tx.cases.findSharedWith(viewer.id, shared.id));
      expect(found).toStrictEqual(shared);
      expectNoUndefined(found);
      expect(await ctx.storage().read((tx) => tx.cases.findSharedWith(third.id, shared.id))).toStrictEqual(shared);
    });

    it("is null for the owner's own case, a case not shared with the viewer, another viewer's, or an unknown id", async () => {
      const f = ctx.fixtures();
      const { org: owner } = await ctx.seedOrganization();
      const { org: viewer } = await ctx.seedOrganization();
      const { org: stranger } = await ctx.seedOrganization();
      const sharedWithViewer = f.caseRecord(owner.id, { organizations: [viewer.id] });
      const notShared = f.caseRecord(owner.id);
      // Lists its own organization too: that is still not "shared with" the owner.
      const listsItself = f.caseRecord(owner.id, { organizations: [owner.id, viewer.id] });
      // An id that merely contains the viewer's as a substring does not match.
      const lookAlike = f.caseRecord(owner.id, { organizations: [`${viewer.id}x`, viewer.id.slice(0, -1)] });
      await ctx.storage().transaction(async (tx) => {
        for (const record of [sharedWithViewer, notShared, listsItself, lookAlike]) await tx.cases.insert(record);
      });
      const sharedWith = (viewerId: string, id: string) => ctx.storage().read((tx) => tx.cases.findSharedWith(viewerId, id));
      expect(await sharedWith(owner.id, sharedWithViewer.id)).toBeNull();
      expect(await sharedWith(owner.id, listsItself.id)).toBeNull();
      expect(await sharedWith(viewer.id, listsItself.id)).toStrictEqual(listsItself);
      expect(await sharedWith(viewer.id, notShared.id)).toBeNull();
      expect(await sharedWith(viewer.id, lookAlike.id)).toBeNull();
      expect(await sharedWith(stranger.id, sharedWithViewer.id)).toBeNull();
      expect(await sharedWith(viewer.id, f.ids.next("case"))).toBeNull();
    });

    it("follows updates: unsharing hides the case at once", async () => {
      const f = ctx.fixtures();
      const { org: owner } = await ctx.seedOrganization();
      const { org: viewer } = await ctx.seedOrganization();
      const record = f.caseRecord(owner.id, { organizations: [viewer.id] });
      await ctx.storage().transaction((tx) => tx.cases.insert(record));
      await ctx.storage().transaction((tx) => tx.cases.update({ ...record, organizations: [] }));
      expect(await ctx.storage().read((tx) => tx.cases.findSharedWith(viewer.id, record.id))).toBeNull();
    });
  });

  describe("cases.list", () => {
    let org: Organization;
    let other: Organization;
    let assignees: string[];
    let mine: Case[];
    let theirs: Case[];
    const hour = 3_600_000;

    beforeEach(async () => {
      const f = ctx.fixtures();
      ({ org } = await ctx.seedOrganization());
      ({ org: other } = await ctx.seedOrganization());
      const u1 = f.user(org.id);
      const u2 = f.user(org.id);
      await ctx.storage().transaction(async (tx) => {
        await tx.users.insert(u1);
        await tx.users.insert(u2);
      });
      assignees = [u1.id, u2.id];
      const make = (organizationId: string, i: number): Case => {
        f.clock.advance(hour);
        return f.caseRecord(organizationId, {
          statusValue: statuses[i % 5]!,
          severity: (i % 4) + 1,
          tlp: i % 5,
          assigneeId: [u1.id, u2.id, null][i % 3]!,
          source: ["siem", "edr", null, "siem"][i % 4]!,
          typeValue: ["phishing", "malware", null][(i + 1) % 3]!,
          tags: tagSets[i % tagSets.length]!,
        });
      };
      mine = [];
      theirs = [];
      for (let i = 0; i < 30; i++) mine.push(make(org.id, i));
      // The other organization gets look-alikes, interleaved in time and id with ours.
      for (let i = 0; i < 12; i++) theirs.push(make(other.id, i));
      const all = shuffled([...mine, ...theirs]);
      await ctx.storage().transaction(async (tx) => {
        for (const record of all) await tx.cases.insert(record);
      });
    });

    const list = (organizationId: string, filter: CaseFilter, limit = 1000, beforeId?: string) =>
      ctx.storage().read((tx) => tx.cases.list(organizationId, filter, beforeId === undefined ? { limit } : { limit, beforeId }));

    async function expectList(filter: CaseFilter): Promise<Case[]> {
      const expected = newestFirst(mine.filter((r) => matches(r, filter)));
      const found = await list(org.id, filter);
      expect(idsOf(found)).toEqual(idsOf(expected));
      expect(found).toStrictEqual(expected);
      return found;
    }

    it("with no filter returns every case of the organization up to maxTlp 4, newest first", async () => {
      const found = await expectList({ maxTlp: 4 });
      expect(found).toHaveLength(30);
    });

    it("maxTlp leaves out records above it", async () => {
      for (const maxTlp of [0, 1, 2, 3]) {
        const found = await expectList({ maxTlp });
        expect(found.every((r) => r.tlp <= maxTlp)).toBe(true);
        expect(found.length).toBeGreaterThan(0);
        expect(found.length).toBeLessThan(30);
      }
    });

    const single: [string, (a: string[]) => Omit<CaseFilter, "maxTlp">][] = [
      ["statusValue, one value", () => ({ statusValue: ["new"] })],
      ["statusValue, any of several", () => ({ statusValue: ["new", "closed"] })],
      ["severity, one value", () => ({ severity: [4] })],
      ["severity, any of several", () => ({ severity: [1, 3] })],
      ["tlp, one value", () => ({ tlp: [0] })],
      ["tlp, any of several", () => ({ tlp: [1, 2] })],
      ["assigneeId, one value", (a) => ({ assigneeId: [a[0]!] })],
      ["assigneeId, any of several", (a) => ({ assigneeId: [a[0]!, a[1]!] })],
      ["source, one value", () => ({ source: ["siem"] })],
      ["source, any of several", () => ({ source: ["siem", "edr"] })],
      ["typeValue, one value", () => ({ typeValue: ["malware"] })],
      ["typeValue, any of several", () => ({ typeValue: ["malware", "phishing"] })],
      ["tag, one name", () => ({ tag: ["ransomware"] })],
      ["tag, a name that only appears beside another tag", () => ({ tag: ["apt"] })],
      ["tag, any of several names", () => ({ tag: ["apt", "phish"] })],
      ["tag, a name with quotes, %, _ and a backslash", () => ({ tag: [oddTag] })],
      ["tag, a name no case has", () => ({ tag: ["nope"] })],
    ];
    it.each(single)("filter: %s", async (_label, build) => {
      const found = await expectList({ maxTlp: 4, ...build(assignees) });
      if (_label !== "tag, a name no case has") expect(found.length).toBeGreaterThan(0);
      else expect(found).toEqual([]);
    });

    it("tag matches tag names only, exactly (not colours, not substrings)", async () => {
      expect(await list(org.id, { maxTlp: 4, tag: ["#ff0000"] })).toEqual([]);
      expect(await list(org.id, { maxTlp: 4, tag: ["ransom"] })).toEqual([]);
      expect(await list(org.id, { maxTlp: 4, tag: ["%"] })).toEqual([]);
    });

    it("createdAfter and createdBefore are exclusive bounds on createdAt", async () => {
      const ordered = [...mine].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      const lower = ordered[5]!;
      const upper = ordered[20]!;
      const after = await expectList({ maxTlp: 4, createdAfter: lower.createdAt });
      expect(after.map((r) => r.id)).not.toContain(lower.id);
      expect(after).toHaveLength(24);
      const before = await expectList({ maxTlp: 4, createdBefore: upper.createdAt });
      expect(before.map((r) => r.id)).not.toContain(upper.id);
      expect(before).toHaveLength(20);
      const between = await expectList({ maxTlp: 4, createdAfter: lower.createdAt, createdBefore: upper.createdAt });
      expect(between).toHaveLength(14);
    });

    it("createdAfter and createdBefore accept other ISO 8601 forms of the same instant", async () => {
      const ordered = [...mine].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      const lower = new Date(ordered[5]!.createdAt);
      const upper = new Date(ordered[20]!.createdAt);
      // lower with a +02:00 offset and no milliseconds; upper half a second later, without "Z".
      const shifted = new Date(lower.getTime() + 2 * hour).toISOString().slice(0, 19) + "+02:00";
      const later = new Date(upper.getTime() + 500).toISOString().slice(0, 19) + ".5+00:00";
      const found = await list(org.id, { maxTlp: 4, createdAfter: shifted, createdBefore: later });
      expect(idsOf(found)).toEqual(idsOf(newestFirst(ordered.slice(6, 21))));
    });

    it("every member narrows the result (AND)", async () => {
      const filters: CaseFilter[] = [
        { maxTlp: 3, statusValue: ["new", "in_progress", "closed"], severity: [1, 2, 3] },
        { maxTlp: 4, source: ["siem"], tag: ["ransomware", "phish"], assigneeId: [assignees[0]!, assignees[1]!] },
        { maxTlp: 2, typeValue: ["malware", "phishing"], tlp: [0, 1, 2, 4], createdAfter: mine[3]!.createdAt },
        {
          maxTlp: 4,
          statusValue: ["new", "on_hold", "closed", "resolved"],
          severity: [1, 2, 4],
          tlp: [0, 2, 3, 4],
          assigneeId: [assignees[0]!],
          source: ["siem", "edr"],
          typeValue: ["phishing", "malware"],
          tag: ["ransomware", "apt", oddTag],
          createdAfter: mine[1]!.createdAt,
          createdBefore: mine[28]!.createdAt,
        },
      ];
      for (const filter of filters) await expectList(filter);
      // One value per member: the form the per-filter indexes serve.
      expect(await list(org.id, { maxTlp: 4, statusValue: ["new"], severity: [2] })).toEqual(
        newestFirst(mine.filter((r) => r.statusValue === "new" && r.severity === 2)),
      );
    });

    it("an empty any-of list matches nothing", async () => {
      expect(await list(org.id, { maxTlp: 4, statusValue: [] })).toEqual([]);
      expect(await list(org.id, { maxTlp: 4, tag: [] })).toEqual([]);
    });

    it("limit caps the rows, newest first", async () => {
      const found = await list(org.id, { maxTlp: 4 }, 5);
      expect(idsOf(found)).toEqual(idsOf(newestFirst(mine)).slice(0, 5));
    });

    it("beforeId returns only records whose id sorts before it", async () => {
      const ordered = newestFirst(mine);
      const found = await list(org.id, { maxTlp: 4 }, 4, ordered[9]!.id);
      expect(idsOf(found)).toEqual(idsOf(ordered.slice(10, 14)));
      // A cursor taken from another organization's record still only shows our records.
      const foreign = newestFirst(theirs)[3]!.id;
      const afterForeign = await list(org.id, { maxTlp: 4 }, 1000, foreign);
      expect(idsOf(afterForeign)).toEqual(idsOf(ordered.filter((r) => r.id < foreign)));
    });

    it("keyset paging walks every page: no duplicates, no gaps, newest first", async () => {
      const filters: CaseFilter[] = [{ maxTlp: 4 }, { maxTlp: 3, statusValue: ["new", "closed", "on_hold"] }, { maxTlp: 4, tag: ["ransomware"] }];
      for (const filter of filters) {
        const expected = idsOf(newestFirst(mine.filter((r) => matches(r, filter))));
        for (const size of [1, 3, 7, 50]) {
          const seen: string[] = [];
          let beforeId: string | undefined;
          for (let pages = 0; pages < 100; pages++) {
            const page = await list(org.id, filter, size, beforeId);
            seen.push(...idsOf(page));
            if (page.length < size) break;
            beforeId = page[page.length - 1]!.id;
          }
          expect(seen, `page size ${size}`).toEqual(expected);
          expect(new Set(seen).size).toBe(seen.length);
        }
      }
    });

    it("never returns another organization's cases", async () => {
      const found = await list(other.id, { maxTlp: 4 });
      expect(idsOf(found)).toEqual(idsOf(newestFirst(theirs)));
      const filtered = await list(other.id, { maxTlp: 4, tag: ["ransomware"], source: ["siem", "edr"] });
      expect(filtered.every((r) => r.organizationId === other.id)).toBe(true);
      const unknown = await list(ctx.fixtures().ids.next("org"), { maxTlp: 4 });
      expect(unknown).toEqual([]);
    });
  });
}
