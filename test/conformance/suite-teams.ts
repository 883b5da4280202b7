import { beforeEach, describe, expect, it } from "vitest";
import type { Organization } from "../../core/index.js";
import type { Team, TeamFilter } from "../../core/teams/types.js";
import { shuffled } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict, expectNoUndefined, idsOf, newestFirst, walkPages } from "./suite-context.js";

/** The team list semantics the port promises: the oracle of the filter tests. */
function teamMatches(team: Team, filter: TeamFilter): boolean {
  const anyOf = (values: readonly string[] | undefined, value: string | null) => values === undefined || (value !== null && values.includes(value));
  return (
    (filter.name === undefined || team.name === filter.name) &&
    anyOf(filter.function, team.function) &&
    anyOf(filter.tier, team.tier) &&
    (filter.escalationTeamId === undefined || team.escalationTeamId === filter.escalationTeamId)
  );
}

const functions = ["soc", "ir", "cti", null];
const tiers = ["L1", "L2", "L3"];

/** Teams: round trips, the per-organization unique name, update, and list. */
export function describeTeams(ctx: SuiteContext): void {
  describe("teams", () => {
    let org: Organization;
    beforeEach(async () => {
      ({ org } = await ctx.seedOrganization());
    });

    it("insert then findById returns the same record, every field intact", async () => {
      const f = ctx.fixtures();
      const target = f.team(org.id, { name: "Escalation" });
      const team = f.team(org.id, {
        name: "Incident Response — Zürich ☕",
        description: "Handles \"P1\" incidents\nand nothing else",
        function: "ir",
        tier: "L2",
        escalationTeamId: target.id,
        email: "ir@example.test",
        slackChannel: "#ir",
        teamsChannel: "IR General",
        timezone: "Europe/Zurich",
        createdBy: "user_0000000000000000000000000a",
      });
      await ctx.storage().transaction(async (tx) => {
        await tx.teams.insert(target);
        await tx.teams.insert(team);
      });
      const found = await ctx.storage().read((tx) => tx.teams.findById(org.id, team.id));
      expect(found).toStrictEqual(team);
      expectNoUndefined(found);
      const bare = await ctx.storage().read((tx) => tx.teams.findById(org.id, target.id));
      expect(bare).toStrictEqual(target);
      expectNoUndefined(bare);
    });

    it("findById with another organization's id, or an unknown id, is null", async () => {
      const team = ctx.fixtures().team(org.id);
      await ctx.storage().transaction((tx) => tx.teams.insert(team));
      const { org: other } = await ctx.seedOrganization();
      expect(await ctx.storage().read((tx) => tx.teams.findById(other.id, team.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.teams.findById(org.id, ctx.fixtures().ids.next("team")))).toBeNull();
    });

    it("a name taken in the organization is a conflict; the same name in another organization is not", async () => {
      const f = ctx.fixtures();
      await ctx.storage().transaction((tx) => tx.teams.insert(f.team(org.id, { name: "SOC" })));
      const clash = f.team(org.id, { name: "SOC" });
      await expectConflict(ctx.storage().transaction((tx) => tx.teams.insert(clash)));
      expect(await ctx.storage().read((tx) => tx.teams.findById(org.id, clash.id))).toBeNull();
      const { org: other } = await ctx.seedOrganization();
      const elsewhere = f.team(other.id, { name: "SOC" });
      await ctx.storage().transaction((tx) => tx.teams.insert(elsewhere));
      expect(await ctx.storage().read((tx) => tx.teams.findById(other.id, elsewhere.id))).toStrictEqual(elsewhere);
    });

    it("update replaces the stored team; renaming to a taken name is a conflict", async () => {
      const f = ctx.fixtures();
      const first = f.team(org.id, { name: "First", function: "soc" });
      const second = f.team(org.id, { name: "Second" });
      await ctx.storage().transaction(async (tx) => {
        await tx.teams.insert(first);
        await tx.teams.insert(second);
      });
      f.clock.advance(1000);
      const after: Team = { ...first, name: "Renamed", function: null, tier: "L3", escalationTeamId: second.id, timezone: "UTC", updatedAt: f.at() };
      await ctx.storage().transaction((tx) => tx.teams.update(after));
      expect(await ctx.storage().read((tx) => tx.teams.findById(org.id, first.id))).toStrictEqual(after);
      await expectConflict(ctx.storage().transaction((tx) => tx.teams.update({ ...second, name: "Renamed" })));
      expect(await ctx.storage().read((tx) => tx.teams.findById(org.id, second.id))).toStrictEqual(second);
      // The freed name can be taken again.
      await ctx.storage().transaction((tx) => tx.teams.update({ ...second, name: "First" }));
    });

    it("update through another organization changes nothing", async () => {
      const team = ctx.fixtures().team(org.id);
      await ctx.storage().transaction((tx) => tx.teams.insert(team));
      const { org: other } = await ctx.seedOrganization();
      await ctx.storage().transaction((tx) => tx.teams.update({ ...team, organizationId: other.id, name: "Hijacked" }));
      expect(await ctx.storage().read((tx) => tx.teams.findById(org.id, team.id))).toStrictEqual(team);
      expect(await ctx.storage().read((tx) => tx.teams.findById(other.id, team.id))).toBeNull();
    });
  });

  describe("teams.list", () => {
    let org: Organization;
    let other: Organization;
    let mine: Team[];
    let theirs: Team[];

    beforeEach(async () => {
      const f = ctx.fixtures();
      ({ org } = await ctx.seedOrganization());
      ({ org: other } = await ctx.seedOrganization());
      mine = [];
      theirs = [];
      for (let i = 0; i < 20; i++) {
        mine.push(
          f.team(org.id, {
            name: `Team ${i}`,
            function: functions[i % 4]!,
            tier: i % 5 === 4 ? null : tiers[i % 3]!,
            escalationTeamId: i >= 2 ? mine[i % 2]!.id : null,
          }),
        );
        // Same names, functions and escalation ids in another organization.
        if (i % 2 === 0) theirs.push(f.team(other.id, { name: `Team ${i}`, function: functions[i % 4]!, escalationTeamId: mine[0]!.id }));
      }
      await ctx.storage().transaction(async (tx) => {
        for (const team of shuffled([...mine, ...theirs])) await tx.teams.insert(team);
      });
    });

    const list = (organizationId: string, filter: TeamFilter, limit = 1000) =>
      ctx.storage().read((tx) => tx.teams.list(organizationId, filter, { limit }));

    async function expectList(filter: TeamFilter): Promise<Team[]> {
      const expected = newestFirst(mine.filter((t) => teamMatches(t, filter)));
      const found = await list(org.id, filter);
      expect(idsOf(found)).toEqual(idsOf(expected));
      expect(found).toStrictEqual(expected);
      return found;
    }

    it("with no filter returns every team of the organization, newest first", async () => {
      expect(await expectList({})).toHaveLength(20);
    });

    it.each<[string, (mine: Team[]) => TeamFilter]>([
      ["name, exactly", () => ({ name: "Team 7" })],
      ["function, one value", () => ({ function: ["ir"] })],
      ["function, any of several", () => ({ function: ["soc", "cti"] })],
      ["tier, one value", () => ({ tier: ["L2"] })],
      ["tier, any of several", () => ({ tier: ["L1", "L3"] })],
      ["escalationTeamId", (m) => ({ escalationTeamId: m[1]!.id })],
      ["every member together", (m) => ({ function: ["soc", "ir", "cti"], tier: ["L1", "L2"], escalationTeamId: m[0]!.id })],
    ])("filter: %s", async (_label, build) => {
      expect((await expectList(build(mine))).length).toBeGreaterThan(0);
    });

    it("name matches exactly (no prefixes, no patterns); empty any-of lists match nothing", async () => {
      expect(await list(org.id, { name: "Team" })).toEqual([]);
      expect(await list(org.id, { name: "Team %" })).toEqual([]);
      expect(await list(org.id, { name: "team 7" })).toEqual([]);
      expect(await list(org.id, { function: [] })).toEqual([]);
      expect(await list(org.id, { tier: [] })).toEqual([]);
      expect(await list(org.id, {}, 0)).toEqual([]);
    });

    it("keyset paging walks every page, and another organization's teams never show", async () => {
      for (const filter of [{}, { function: ["soc", "ir"] } satisfies TeamFilter]) {
        const expected = idsOf(newestFirst(mine.filter((t) => teamMatches(t, filter))));
        for (const size of [1, 3, 50]) {
          expect(await walkPages((page) => ctx.storage().read((tx) => tx.teams.list(org.id, filter, page)), size)).toEqual(expected);
        }
      }
      expect(idsOf(await list(other.id, {}))).toEqual(idsOf(newestFirst(theirs)));
      expect(await list(other.id, { escalationTeamId: mine[1]!.id })).toEqual([]);
    });
  });
}
