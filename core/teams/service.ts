import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { recordChange } from "../audit/record-change.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError, unknownReference } from "../errors.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";
import { teamCreateSchema, teamListQuerySchema, teamUpdateSchema } from "./schema.js";
import type { Team } from "./types.js";

/** Longest escalation chain walked before it is called a cycle. */
const maxEscalationDepth = 64;

/** Teams: created and changed by admins (`teams:write`), read with `users:read`. */
export function createTeamService(deps: CaseKitDeps) {
  const { storage, clock, ids } = deps;

  async function load(tx: UnitOfWork, principal: Principal, id: string): Promise<Team> {
    const team = await tx.teams.findById(principal.organizationId, id);
    if (!team) throw new CaseKitError("not_found", `No team ${id}`);
    return team;
  }

  /** The escalation target must be a team of the organization, and following it must not lead back. */
  async function checkEscalation(tx: UnitOfWork, principal: Principal, teamId: string, escalationTeamId: string): Promise<void> {
    let current: string | null = escalationTeamId;
    for (let depth = 0; current !== null; depth++) {
      if (current === teamId || depth > maxEscalationDepth) throw new CaseKitError("conflict", "escalationTeamId: would make an escalation cycle", [{ path: "escalationTeamId", message: "would make an escalation cycle" }]);
      const next: Team | null = await tx.teams.findById(principal.organizationId, current);
      if (!next) throw unknownReference("escalationTeamId", "must name a team of your organization");
      current = next.escalationTeamId;
    }
  }

  return {
    async create(principal: Principal, input: unknown): Promise<Team> {
      requireScope(principal, "teams:write");
      const body = parse(teamCreateSchema, input);
      if (body.organizationId !== undefined && body.organizationId !== principal.organizationId) {
        throw new CaseKitError("organization_restricted", "Teams can only be created in your own organization");
      }
      const now = clock.now();
      const at = now.toISOString();
      const team: Team = {
        id: ids.next("team"),
        organizationId: principal.organizationId,
        name: body.name,
        description: body.description ?? null,
        function: body.function ?? null,
        tier: body.tier ?? null,
        escalationTeamId: body.escalationTeamId ?? null,
        email: body.email ?? null,
        slackChannel: body.slackChannel ?? null,
        teamsChannel: body.teamsChannel ?? null,
        timezone: body.timezone ?? null,
        createdAt: at,
        updatedAt: at,
        createdBy: principal.userId,
      };
      return storage.transaction(async (tx) => {
        if (team.escalationTeamId) await checkEscalation(tx, principal, team.id, team.escalationTeamId);
        await tx.teams.insert(team);
        await recordChange(deps, tx, principal, { name: "team.created", resourceType: "team", before: null, after: team, tlp: null, now });
        return team;
      });
    },

    async update(principal: Principal, id: string, input: unknown): Promise<Team> {
      requireScope(principal, "teams:write");
      const patch = parse(teamUpdateSchema, input);
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await load(tx, principal, id);
        if (patch.escalationTeamId) await checkEscalation(tx, principal, id, patch.escalationTeamId);
        const after: Team = { ...before, ...patch, updatedAt: now.toISOString() };
        await tx.teams.update(after);
        await recordChange(deps, tx, principal, { name: "team.updated", resourceType: "team", before, after, tlp: null, now });
        return after;
      });
    },

    async get(principal: Principal, id: string): Promise<Team> {
      requireScope(principal, "users:read");
      return storage.read((tx) => load(tx, principal, id));
    },

    async list(principal: Principal, query: unknown): Promise<{ data: Team[]; nextCursor: string | null }> {
      requireScope(principal, "users:read");
      const { limit, cursor, ...filters } = parse(teamListQuerySchema, query);
      const rows = await storage.read((tx) =>
        tx.teams.list(principal.organizationId, filters, { limit: limit + 1, beforeId: decodeCursor(cursor) }),
      );
      return toPage(rows, limit);
    },
  };
}

export type TeamService = ReturnType<typeof createTeamService>;
