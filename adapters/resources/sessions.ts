/**
 * Account-area sessions, declared once: both dialects' tables, rows and SQL come from this
 * declaration. The token and the CSRF token are stored as hashes only. The port's
 * SessionRepository is the generic repository plus the lookup by token hash with the session's
 * owner, written once for both dialects.
 */
import type { Session } from "../../core/account/types.js";
import type { SessionRepository } from "../../core/ports/storage.js";
import { id, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { recordOf } from "../declare/rows.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";
import { ownerJoin, ownerOf } from "./users.js";

export const sessionResource = defineResource({
  table: "sessions",
  noun: "A session",
  columns: {
    // Never listed, so never paged through: the database's own collation.
    id: id({ unsorted: true }),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    userId: text({ references: { table: "users", column: "id" } }),
    tokenHash: text(),
    csrfHash: text(),
    createdAt: timestamp(),
    expiresAt: timestamp(),
  },
  unique: [{ name: "sessions_token_hash_unique", columns: ["tokenHash"], constraint: true, conflict: "A session with this token already exists" }],
  filters: { userId: { kind: "equals", column: "userId" } },
});

/** Compile-time proof that the declaration stores exactly the core's Session. */
export const _sessionRecordMatches: Same<RecordOf<typeof sessionResource>, Session> = true;

/** Every signed-in request starts here: one statement, the unique token index then the owner's primary key. */
export const sessionByTokenHashSql = oncePerDialect((dialect: Dialect) => {
  const owner = ownerJoin("sessions");
  const columns = sessionResource.fields.map((f) => `sessions.${f.name}`).join(", ");
  return `SELECT ${columns}, ${owner.columns} FROM sessions ${owner.join} WHERE sessions.token_hash = ${dialect.param(1)}`;
});

export function sessionRepository(
  sessions: DeclaredRepository<Session, FilterValues<typeof sessionResource>>,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
): SessionRepository {
  const { reading } = unitGuards(unit);
  const byTokenHash = sessionByTokenHashSql(dialect);

  return {
    insert: (session) => sessions.insert(session),
    async findByTokenHash(tokenHash) {
      reading();
      const [row] = await executor.all(byTokenHash, [tokenHash]);
      return row ? { session: recordOf<Session>(sessionResource, row), owner: ownerOf(row) } : null;
    },
    async delete(organizationId, id) {
      await sessions.delete(organizationId, id);
    },
    async deleteForUser(organizationId, userId) {
      await sessions.deleteWhere(organizationId, { userId });
    },
  };
}
