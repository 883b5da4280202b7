import type { CaseFilter } from "../../core/cases/types.js";
import { CaseKitError } from "../../core/errors.js";
import type { PageRequest, UnitOfWork } from "../../core/ports/storage.js";
import { createUnitOfWork as declaredUnitOfWork } from "../resources/unit-of-work.js";
import { normalizeCaseFilter, pageLimit } from "../shared/case-filter.js";
import { normalizeTlpAuditFilter } from "../shared/list-filters.js";
import type { AuditEntryRow, CaseRow, TlpAuditEntryRow } from "../shared/rows.js";
import {
  auditEntryFromRow,
  auditEntryToRow,
  caseFromRow,
  caseToRow,
  tlpAuditEntryFromRow,
  tlpAuditEntryToRow,
} from "../shared/rows.js";
import { caseListQuery } from "./case-list.js";
import { sqliteDialect, sqliteExecutor } from "./dialect.js";
import { tlpAuditListQuery } from "./record-lists.js";
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

  });
}
