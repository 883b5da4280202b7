/**
 * Teams, declared once: both dialects' tables, rows and SQL come from this declaration, and the
 * port's TeamRepository is the generic repository listed newest first.
 */
import type { TeamRepository } from "../../core/ports/storage.js";
import type { Team } from "../../core/teams/types.js";
import { id, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";

export const teamResource = defineResource({
  table: "teams",
  noun: "A team",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    name: text(),
    description: text({ nullable: true }),
    function: text({ nullable: true }),
    tier: text({ nullable: true }),
    /** Another team of the same organization; the core checks it and refuses cycles. */
    escalationTeamId: text({ nullable: true }),
    email: text({ nullable: true }),
    slackChannel: text({ nullable: true }),
    teamsChannel: text({ nullable: true }),
    timezone: text({ nullable: true }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    createdBy: text({ nullable: true }),
  },
  unique: [{ name: "teams_organization_id_name_unique", columns: ["organizationId", "name"], conflict: "The organization already has a team with this name" }],
  // A page is one range of this index, newest first: no sort whatever the filters.
  indexes: [{ name: "teams_organization_id_idx", columns: ["organizationId", "id"] }],
  filters: {
    name: { kind: "equals", column: "name" },
    function: { kind: "anyOf", column: "function" },
    tier: { kind: "anyOf", column: "tier" },
    escalationTeamId: { kind: "equals", column: "escalationTeamId" },
  },
});

/** Compile-time proof that the declaration stores exactly the core's Team. */
export const _teamRecordMatches: Same<RecordOf<typeof teamResource>, Team> = true;

export function teamRepository(teams: DeclaredRepository<Team, FilterValues<typeof teamResource>>): TeamRepository {
  return {
    insert: (record) => teams.insert(record),
    findById: (organizationId, id) => teams.findById(organizationId, id),
    update: (record) => teams.update(record),
    list: (organizationId, filter, page) => teams.list(organizationId, filter, { limit: pageLimit(page), order: "desc", after: page.beforeId }),
  };
}
