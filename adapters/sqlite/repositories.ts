import type { CaseFilter } from "../../core/cases/types.js";
import { CaseKitError } from "../../core/errors.js";
import type { PageRequest, UnitOfWork } from "../../core/ports/storage.js";
import { createUnitOfWork as declaredUnitOfWork } from "../resources/unit-of-work.js";
import { normalizeCaseFilter, pageLimit } from "../shared/case-filter.js";
import { normalizeApiKeyFilter, normalizeTlpAuditFilter, normalizeUserFilter } from "../shared/list-filters.js";
import type {
  ApiKeyRow,
  AuditEntryRow,
  CaseRow,
  OrganizationRow,
  SessionRow,
  SignInThrottleRow,
  TlpAuditEntryRow,
  UserRow,
} from "../shared/rows.js";
import {
  apiKeyFromRow,
  apiKeyToRow,
  auditEntryFromRow,
  auditEntryToRow,
  caseFromRow,
  caseToRow,
  organizationFromRow,
  organizationToRow,
  sessionFromRow,
  sessionToRow,
  signInThrottleFromRow,
  signInThrottleToRow,
  tlpAuditEntryFromRow,
  tlpAuditEntryToRow,
  userFromRow,
  userToRow,
} from "../shared/rows.js";
import { toIsoTimestamp } from "../shared/values.js";
import { caseListQuery } from "./case-list.js";
import { createAlertRepository } from "./alert-repository.js";
import { sqliteDialect, sqliteExecutor } from "./dialect.js";
import { apiKeyListQuery, tlpAuditListQuery, userListQuery } from "./record-lists.js";
import { translateError } from "./errors.js";
import type { Statement, Statements } from "./statements.js";
import { auditEntryColumns, tlpAuditEntryColumns } from "../shared/rows.js";
import { extendsChain } from "../../core/tlp/chain.js";
import { sql } from "./statements.js";
import { unitGuards } from "../shared/unit-state.js";
import type { UnitState } from "../shared/unit-state.js";

export type { UnitState } from "../shared/unit-state.js";

/** Rows per multi-row INSERT: 100 rows of 13 columns stay far below SQLite's 32 766 parameters. */
const rowsPerInsert = 100;


/**
 * The repositories of one unit of work. Statements run synchronously the moment a method is
 * called, so everything a unit does happens while it holds the storage's queue. A `tx` kept after
 * its unit ended is refused (its statements would otherwise land in whatever unit runs next), and
 * so is a write inside `read`.
 */
export function createUnitOfWork(statements: Statements, unit: UnitState): UnitOfWork {
  const { reading, writing } = unitGuards(unit);
  const executor = sqliteExecutor(statements);
  const get = <Row>(text: string, ...params: unknown[]) => statements.get(text).get(...params) as Row | undefined;
  const all = <Row>(statement: Statement, ...params: unknown[]) => statement.all(...params) as Row[];
  /** Rows of a list statement built for one filter shape (see record-lists.ts). */
  const listed = <Row>(query: { text: string; params: unknown[] }) => all<Row>(statements.getDynamic(query.text), ...query.params);
  const write = (text: string, ...params: unknown[]): number => {
    try {
      return statements.get(text).run(...params).changes;
    } catch (error) {
      throw translateError(error);
    }
  };

  /** Many rows into `table`, 100 per INSERT, bound by position (a bulk page; binding by name costs twice as much). */
  const writeMany = (table: string, columns: readonly string[], rows: readonly object[]): void => {
    for (let start = 0; start < rows.length; start += rowsPerInsert) {
      const batch = rows.slice(start, start + rowsPerInsert) as Record<string, unknown>[];
      const params: unknown[] = [];
      for (const row of batch) for (const column of columns) params.push(row[column]);
      const text = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${batch.map(() => `(${columns.map(() => "?").join(", ")})`).join(", ")}`;
      try {
        statements.get(text).run(...params);
      } catch (error) {
        throw translateError(error);
      }
    }
  };

  return declaredUnitOfWork(sqliteDialect, executor, unit, {
    organizations: {
      async insert(org) {
        writing();
        write(sql.organizationInsert, organizationToRow(org));
      },
      async update(org) {
        writing();
        const { id, name, policy, updated_at } = organizationToRow(org);
        write(sql.organizationUpdate, { id, name, policy, updated_at });
      },
      async findById(id) {
        reading();
        const row = get<OrganizationRow>(sql.organizationById, id);
        return row ? organizationFromRow(row) : null;
      },
      async existingIds(ids) {
        reading();
        if (ids.length === 0) return [];
        return all<{ id: string }>(statements.get(sql.organizationIdsIn), JSON.stringify(ids)).map((row) => row.id);
      },
      async nextCaseNumber(organizationId) {
        writing();
        const row = get<{ case_seq: number }>(sql.organizationNextCaseNumber, organizationId);
        if (!row) throw new CaseKitError("not_found", `No organization ${organizationId}`);
        return row.case_seq;
      },
    },

    users: {
      async insert(user) {
        writing();
        write(sql.userInsert, userToRow(user));
      },
      async findById(organizationId, id) {
        reading();
        const row = get<UserRow>(sql.userById, organizationId, id);
        return row ? userFromRow(row) : null;
      },
      async findByEmail(email) {
        reading();
        const row = get<UserRow>(sql.userByEmail, email.toLowerCase());
        return row ? userFromRow(row) : null;
      },
      async update(user) {
        writing();
        write(sql.userUpdate, userToRow(user));
      },
      async list(organizationId, filter, page) {
        reading();
        const limit = pageLimit(page);
        const normalized = normalizeUserFilter(filter);
        if (limit === 0 || normalized === null) return [];
        return listed<UserRow>(userListQuery(organizationId, normalized, limit, page.beforeId)).map(userFromRow);
      },
    },

    apiKeys: {
      async insert(key) {
        writing();
        write(sql.apiKeyInsert, apiKeyToRow(key));
      },
      async findByHash(hash) {
        reading();
        const keyRow = get<ApiKeyRow>(sql.apiKeyByHash, hash);
        if (!keyRow) return null;
        // The owner is looked up inside the key's own organization.
        const ownerRow = get<UserRow>(sql.userById, keyRow.organization_id, keyRow.user_id);
        if (!ownerRow) return null;
        return { key: apiKeyFromRow(keyRow), owner: userFromRow(ownerRow) };
      },
      async touchLastUsed(organizationId, id, at) {
        writing();
        write(sql.apiKeyTouch, toIsoTimestamp(at), organizationId, id);
      },
      async findById(organizationId, id) {
        reading();
        const row = get<ApiKeyRow>(sql.apiKeyById, organizationId, id);
        return row ? apiKeyFromRow(row) : null;
      },
      async update(key) {
        writing();
        write(sql.apiKeyUpdate, apiKeyToRow(key));
      },
      async delete(organizationId, id) {
        writing();
        write(sql.apiKeyDelete, organizationId, id);
      },
      async list(organizationId, filter, page) {
        reading();
        const limit = pageLimit(page);
        const normalized = normalizeApiKeyFilter(filter);
        if (limit === 0 || normalized === null) return [];
        return listed<ApiKeyRow>(apiKeyListQuery(organizationId, normalized, limit, page.beforeId)).map(apiKeyFromRow);
      },
    },

    cases: {
      async insert(record) {
        writing();
        write(sql.caseInsert, caseToRow(record));
      },
      async findById(organizationId, id) {
        reading();
        const row = get<CaseRow>(sql.caseById, organizationId, id);
        return row ? caseFromRow(row) : null;
      },
      async findMany(organizationId, ids) {
        reading();
        if (ids.length === 0) return [];
        return all<CaseRow>(statements.get(sql.casesByIds), organizationId, JSON.stringify(ids)).map(caseFromRow);
      },
      async findSharedWith(viewerOrganizationId, id) {
        reading();
        const row = get<CaseRow>(sql.caseSharedWith, id, viewerOrganizationId, viewerOrganizationId);
        return row ? caseFromRow(row) : null;
      },
      async update(record) {
        writing();
        return write(sql.caseUpdate, caseToRow(record)) > 0;
      },
      async list(organizationId: string, filter: CaseFilter, page: PageRequest) {
        reading();
        const limit = pageLimit(page);
        const normalized = normalizeCaseFilter(filter);
        if (limit === 0 || normalized === null) return [];
        const query = caseListQuery(organizationId, normalized, limit, page.beforeId);
        const rows = all<string>(statements.getJsonRows(query.text), ...query.params);
        return rows.map((text) => caseFromRow(JSON.parse(text) as CaseRow));
      },
    },

    audit: {
      async append(entry) {
        writing();
        write(sql.auditInsert, auditEntryToRow(entry));
      },
      async appendMany(entries) {
        writing();
        writeMany("audit_log", auditEntryColumns, entries.map(auditEntryToRow));
      },
      async list(organizationId, page) {
        reading();
        const limit = pageLimit(page);
        if (limit === 0) return [];
        const rows =
          page.beforeId === undefined
            ? all<AuditEntryRow>(statements.get(sql.auditList), organizationId, limit)
            : all<AuditEntryRow>(statements.get(sql.auditListBefore), organizationId, page.beforeId, limit);
        return rows.map(auditEntryFromRow);
      },
    },


    tlpAudit: {
      // Units of work are serialised (storage.ts), so the head read here cannot move before the
      // unit ends: no lock is needed to keep two writers from forking the chain.
      async head(organizationId) {
        reading();
        return get<{ seq: number; hash: string }>(sql.tlpAuditHead, organizationId) ?? { seq: 0, hash: "" };
      },
      async append(entry) {
        writing();
        // The entry must extend the head: a forked or gapped chain is refused before anything is
        // written. An unknown organization falls through to the insert, which its foreign key fails.
        const head = get<{ seq: number; hash: string }>(sql.tlpAuditHead, entry.organizationId);
        if (head && (entry.seq !== head.seq + 1 || entry.prevHash !== head.hash)) {
          throw new CaseKitError("conflict", "The TLP audit entry does not follow the organization's last entry");
        }
        write(sql.tlpAuditInsert, tlpAuditEntryToRow(entry));
        write(sql.tlpAuditMoveHead, entry.seq, entry.hash, entry.organizationId);
      },
      async appendMany(entries) {
        writing();
        const last = entries.at(-1);
        if (last === undefined) return;
        const head = get<{ seq: number; hash: string }>(sql.tlpAuditHead, last.organizationId);
        if (head && !extendsChain(head, entries)) {
          throw new CaseKitError("conflict", "The TLP audit entries do not follow the organization's last entry");
        }
        writeMany("tlp_audit_log", tlpAuditEntryColumns, entries.map(tlpAuditEntryToRow));
        write(sql.tlpAuditMoveHead, last.seq, last.hash, last.organizationId);
      },
      async list(organizationId, filter, page) {
        reading();
        const limit = pageLimit(page);
        const normalized = normalizeTlpAuditFilter(filter);
        if (limit === 0 || normalized === null) return [];
        return listed<TlpAuditEntryRow>(tlpAuditListQuery(organizationId, normalized, limit, page.beforeId)).map(tlpAuditEntryFromRow);
      },
      async chain(organizationId, afterSeq, limit) {
        reading();
        const count = pageLimit({ limit });
        if (count === 0) return [];
        return all<TlpAuditEntryRow>(statements.get(sql.tlpAuditChain), organizationId, afterSeq, count).map(tlpAuditEntryFromRow);
      },
    },

    sessions: {
      async insert(session) {
        writing();
        write(sql.sessionInsert, sessionToRow(session));
      },
      async findByTokenHash(tokenHash) {
        reading();
        const sessionRow = get<SessionRow>(sql.sessionByTokenHash, tokenHash);
        if (!sessionRow) return null;
        // The owner is looked up inside the session's own organization.
        const ownerRow = get<UserRow>(sql.userById, sessionRow.organization_id, sessionRow.user_id);
        if (!ownerRow) return null;
        return { session: sessionFromRow(sessionRow), owner: userFromRow(ownerRow) };
      },
      async delete(organizationId, id) {
        writing();
        write(sql.sessionDelete, organizationId, id);
      },
      async deleteForUser(organizationId, userId) {
        writing();
        write(sql.sessionDeleteForUser, organizationId, userId);
      },
    },

    signInThrottles: {
      async get(email) {
        reading();
        const row = get<SignInThrottleRow>(sql.throttleByEmail, email);
        return row ? signInThrottleFromRow(row) : null;
      },
      async put(throttle) {
        writing();
        write(sql.throttlePut, signInThrottleToRow(throttle));
      },
      async clear(email) {
        writing();
        write(sql.throttleClear, email);
      },
    },

    alerts: createAlertRepository(statements, unit),
  });
}
