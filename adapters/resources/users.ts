/**
 * Users, declared once: both dialects' tables, rows and SQL come from this declaration. The
 * port's UserRepository is the generic repository plus the sign-in lookup by email, and the
 * owner join API keys and sessions read their owner through, each written once for both dialects.
 */
import type { UserRepository } from "../../core/ports/storage.js";
import type { StoredUser } from "../../core/users/types.js";
import { userRoles, userStatuses } from "../../core/users/types.js";
import { enumOf, id, int, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { recordOf } from "../declare/rows.js";
import { pageLimit } from "../shared/case-filter.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";

export const userResource = defineResource({
  table: "users",
  noun: "A user",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    /** Unique across the deployment, stored lower-case: an email names one person, whatever their tenant. */
    email: text(),
    name: text(),
    role: enumOf(userRoles),
    status: enumOf(userStatuses),
    tlpClearance: int(),
    passwordHash: text({ nullable: true }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    createdBy: text({ nullable: true }),
  },
  unique: [{ name: "users_email_unique", columns: ["email"], constraint: true, conflict: "A user with this email address already exists" }],
  // A page is one range of this index, newest first, whatever the filters.
  indexes: [{ name: "users_organization_id_idx", columns: ["organizationId", "id"] }],
  filters: {
    status: { kind: "anyOf", column: "status" },
    role: { kind: "anyOf", column: "role" },
    email: { kind: "equals", column: "email" },
  },
});

/** Compile-time proof that the declaration stores exactly the core's StoredUser. */
export const _userRecordMatches: Same<RecordOf<typeof userResource>, StoredUser> = true;

const ownerPrefix = "owner_";

/**
 * The owning user's columns and join, for a table with `organization_id` and `user_id`: the owner
 * is looked up inside the row's own organization, so a key or a session never crosses tenants.
 * Read the owner back with `ownerOf`.
 */
export const ownerJoin = (table: string): { columns: string; join: string } => ({
  columns: userResource.fields.map((f) => `users.${f.name} AS ${ownerPrefix}${f.name}`).join(", "),
  join: `JOIN users ON users.id = ${table}.user_id AND users.organization_id = ${table}.organization_id`,
});

export const ownerOf = (row: Record<string, unknown>): StoredUser => recordOf<StoredUser>(userResource, row, ownerPrefix);

/** The bespoke statement, built once per dialect: sign-in's lookup, which the unique email index serves. */
export const userByEmailSql = oncePerDialect(
  (dialect: Dialect) => `SELECT ${userResource.fields.map((f) => f.name).join(", ")} FROM users WHERE email = ${dialect.param(1)}`,
);

export function userRepository(
  users: DeclaredRepository<StoredUser, FilterValues<typeof userResource>>,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
): UserRepository {
  const { reading } = unitGuards(unit);
  const byEmail = userByEmailSql(dialect);

  return {
    insert: (user) => users.insert(user),
    findById: (organizationId, id) => users.findById(organizationId, id),
    async findByEmail(email) {
      reading();
      const [row] = await executor.all(byEmail, [email.toLowerCase()]);
      return row ? recordOf<StoredUser>(userResource, row) : null;
    },
    update: (user) => users.update(user),
    list: (organizationId, filter, page) => users.list(organizationId, filter, { limit: pageLimit(page), order: "desc", after: page.beforeId }),
  };
}
