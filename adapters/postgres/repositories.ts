import type { SQL } from "drizzle-orm";
import { and, desc, eq, gt, gte, inArray, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { alias } from "drizzle-orm/pg-core";
import type { CaseFilter } from "../../core/cases/types.js";
import { CaseKitError } from "../../core/errors.js";
import { extendsChain } from "../../core/tlp/chain.js";
import type { PageRequest, UnitOfWork } from "../../core/ports/storage.js";
import { createUnitOfWork as declaredUnitOfWork } from "../resources/unit-of-work.js";
import type { AuditEntryRow, CaseRow, TlpAuditEntryRow } from "../shared/rows.js";
import {
  auditEntryFromRow,
  auditEntryToRow,
  caseFromRow,
  caseToRow,
  tlpAuditEntryFromRow,
  tlpAuditEntryToRow,
} from "../shared/rows.js";
import { normalizeCaseFilter, pageLimit } from "../shared/case-filter.js";
import { uniqueViolation } from "../shared/conflicts.js";
import { normalizeTlpAuditFilter } from "../shared/list-filters.js";
import { guard } from "./errors.js";
import type { Executor } from "../declare/dialect.js";
import { postgresDialect } from "./dialect.js";
import { rowSelection, rowValues } from "./rows.js";
import { auditLog, cases, organizations, tlpAuditLog } from "./schema.js";
import { unitGuards } from "../shared/unit-state.js";
import type { UnitState } from "../shared/unit-state.js";

export type { UnitState } from "../shared/unit-state.js";


/**
 * The repositories of one unit of work, all issuing their statements through `db` (one pooled
 * connection, inside or outside a transaction). Rows travel keyed by column name and are turned
 * into records by the shared mappers, the same ones the SQLite adapter uses.
 */
export function createUnitOfWork(db: NodePgDatabase, executor: Executor, unit: UnitState): UnitOfWork {
  // The same refusals as the SQLite adapter's: a `tx` kept past its unit would run its statements
  // on a connection already back in the pool, and a write inside `read` would commit on its own.
  const { reading, writing } = unitGuards(unit);
  const taken = async (table: PgTable, where: SQL | undefined): Promise<boolean> =>
    (await guard(db.select({ one: sql<number>`1` }).from(table).where(where).limit(1))).length > 0;

  /**
   * Runs an UPDATE whose WHERE already refuses to take a unique key another row holds (see
   * `heldByAnother`), so a clash writes nothing and leaves the transaction usable, as
   * insertOrConflict does for inserts. On "no row written", the keys are probed to tell a
   * conflict from a missing row. (Two units racing for the same key can still both pass the check;
   * the loser's unique violation is then the statement's error, still a conflict.)
   */
  async function updateOrConflict(
    statement: PromiseLike<{ id: string }[]>,
    table: string,
    uniqueKeys: [constraint: string, heldElsewhere: SQL][],
  ): Promise<boolean> {
    const written = await guard(statement);
    if (written.length > 0) return true;
    for (const [constraint, heldElsewhere] of uniqueKeys) {
      if ((await guard(db.execute(sql`select exists ${heldElsewhere} as held`))).rows[0]?.held === true) {
        throw uniqueViolation({ table, constraint });
      }
    }
    return false;
  }

  return declaredUnitOfWork(postgresDialect, executor, unit, {
    cases: {
      async insert(record) {
        writing();
        await insertOrConflict(
          db.insert(cases).values(rowValues(cases, caseToRow(record))).onConflictDoNothing().returning({ id: cases.id }),
          "cases",
          [
            [
              "cases_organization_id_number_unique",
              () => taken(cases, and(eq(cases.organizationId, record.organizationId), eq(cases.number, record.number))),
            ],
          ],
        );
      },
      async findById(organizationId, id) {
        reading();
        const rows = await guard(
          db.select(caseRow).from(cases).where(and(eq(cases.organizationId, organizationId), eq(cases.id, id))).limit(1),
        );
        return rows[0] ? caseFromRow(rows[0] as unknown as CaseRow) : null;
      },
      async findMany(organizationId, ids) {
        reading();
        if (ids.length === 0) return [];
        const rows = await guard(db.select(caseRow).from(cases).where(and(eq(cases.organizationId, organizationId), inArray(cases.id, [...ids]))));
        return rows.map((row) => caseFromRow(row as unknown as CaseRow));
      },
      async findSharedWith(viewerOrganizationId, id) {
        reading();
        // Found by its primary key; `?` asks whether the jsonb array holds the viewer's id.
        const rows = await guard(
          db
            .select(caseRow)
            .from(cases)
            .where(
              and(eq(cases.id, id), ne(cases.organizationId, viewerOrganizationId), sql`${cases.organizations} ? ${viewerOrganizationId}`),
            )
            .limit(1),
        );
        return rows[0] ? caseFromRow(rows[0] as unknown as CaseRow) : null;
      },
      async update(record) {
        writing();
        // Everything but the identity columns is replaced.
        const { id: _id, organization_id: _organizationId, ...row } = caseToRow(record);
        const other = alias(cases, "other");
        const numberElsewhere = db
          .select({ one: sql`1` })
          .from(other)
          .where(and(eq(other.organizationId, record.organizationId), eq(other.number, record.number), ne(other.id, record.id)));
        return updateOrConflict(
          db
            .update(cases)
            .set(rowValues(cases, row))
            .where(and(eq(cases.organizationId, record.organizationId), eq(cases.id, record.id), sql`not exists ${numberElsewhere}`))
            .returning({ id: cases.id }),
          "cases",
          [["cases_organization_id_number_unique", sql`${numberElsewhere}`]],
        );
      },
      async list(organizationId, filter, page) {
        reading();
        const limit = pageLimit(page);
        const normalized = normalizeCaseFilter(filter);
        if (limit === 0 || normalized === null) return [];
        const rows = await guard(
          db
            .select(caseRow)
            .from(cases)
            .where(and(eq(cases.organizationId, organizationId), ...caseConditions(normalized), ...keyset(cases.id, page)))
            .orderBy(desc(cases.id))
            .limit(limit),
        );
        return rows.map((row) => caseFromRow(row as unknown as CaseRow));
      },
    },

    audit: {
      async append(entry) {
        writing();
        await insertOrConflict(
          db.insert(auditLog).values(rowValues(auditLog, auditEntryToRow(entry))).onConflictDoNothing().returning({ id: auditLog.id }),
          "audit_log",
          [],
        );
      },
      async appendMany(entries) {
        writing();
        for (let start = 0; start < entries.length; start += rowsPerInsert) {
          const batch = entries.slice(start, start + rowsPerInsert);
          const written = await guard(
            db
              .insert(auditLog)
              .values(batch.map((entry) => rowValues(auditLog, auditEntryToRow(entry))))
              .onConflictDoNothing()
              .returning({ id: auditLog.id }),
          );
          if (written.length < batch.length) throw uniqueViolation({ table: "audit_log", constraint: "audit_log_pkey" });
        }
      },
      async list(organizationId, page) {
        reading();
        const limit = pageLimit(page);
        if (limit === 0) return [];
        const rows = await guard(
          db
            .select(auditEntryRow)
            .from(auditLog)
            .where(and(eq(auditLog.organizationId, organizationId), ...keyset(auditLog.id, page)))
            .orderBy(desc(auditLog.id))
            .limit(limit),
        );
        return rows.map((row) => auditEntryFromRow(row as unknown as AuditEntryRow));
      },
    },

    tlpAudit: {
      /**
       * Inside a transaction the head is read FOR NO KEY UPDATE (not FOR UPDATE: every row the unit
       * inserts that references the organization holds a KEY SHARE lock on its row, which FOR
       * UPDATE waits for, so two such units deadlocked): the organization's row stays locked until
       * the unit commits or rolls back, so a second writer (in this process or on another host)
       * waits here and then reads the head the first one moved, and the chain never forks. In
       * `read`, a plain read of the committed head.
       */
      async head(organizationId) {
        reading();
        const query = db.select(chainHead).from(organizations).where(eq(organizations.id, organizationId));
        const rows = await guard(unit.writable ? query.for("no key update") : query);
        return rows[0] ?? { seq: 0, hash: "" };
      },
      async append(entry) {
        writing();
        // The entry must extend the head, checked under the head's lock (taken here too, for a
        // caller that did not read the head in this unit): a forked or gapped chain is refused
        // before anything is written. An unknown organization falls through to the insert, which
        // its foreign key fails.
        const rows = await guard(
          db.select(chainHead).from(organizations).where(eq(organizations.id, entry.organizationId)).for("no key update"),
        );
        const current = rows[0];
        if (current && (entry.seq !== current.seq + 1 || entry.prevHash !== current.hash)) {
          throw new CaseKitError("conflict", "The TLP audit entry does not follow the organization's last entry");
        }
        await insertOrConflict(
          db.insert(tlpAuditLog).values(rowValues(tlpAuditLog, tlpAuditEntryToRow(entry))).onConflictDoNothing().returning({ id: tlpAuditLog.id }),
          "tlp_audit_log",
          [
            [
              "tlp_audit_log_organization_id_seq_unique",
              () => taken(tlpAuditLog, and(eq(tlpAuditLog.organizationId, entry.organizationId), eq(tlpAuditLog.seq, entry.seq))),
            ],
          ],
        );
        await guard(
          db
            .update(organizations)
            .set({ tlpAuditSeq: entry.seq, tlpAuditHash: entry.hash })
            .where(eq(organizations.id, entry.organizationId)),
        );
      },
      async appendMany(entries) {
        writing();
        const last = entries.at(-1);
        if (last === undefined) return;
        // Checked under the head's lock, as append does.
        const rows = await guard(db.select(chainHead).from(organizations).where(eq(organizations.id, last.organizationId)).for("no key update"));
        const current = rows[0];
        if (current && !extendsChain(current, entries)) {
          throw new CaseKitError("conflict", "The TLP audit entries do not follow the organization's last entry");
        }
        for (let start = 0; start < entries.length; start += rowsPerInsert) {
          const batch = entries.slice(start, start + rowsPerInsert);
          const written = await guard(
            db
              .insert(tlpAuditLog)
              .values(batch.map((entry) => rowValues(tlpAuditLog, tlpAuditEntryToRow(entry))))
              .onConflictDoNothing()
              .returning({ id: tlpAuditLog.id }),
          );
          if (written.length < batch.length) throw new CaseKitError("conflict", "A TLP audit entry with this id or sequence number exists already");
        }
        await guard(db.update(organizations).set({ tlpAuditSeq: last.seq, tlpAuditHash: last.hash }).where(eq(organizations.id, last.organizationId)));
      },
      async list(organizationId, filter, page) {
        reading();
        const limit = pageLimit(page);
        const normalized = normalizeTlpAuditFilter(filter);
        if (limit === 0 || normalized === null) return [];
        const conditions: SQL[] = [];
        // The reader's clearance bounds both markings an entry names (null: no marking).
        if (normalized.maxTlp !== undefined) {
          conditions.push(or(isNull(tlpAuditLog.tlpBefore), lte(tlpAuditLog.tlpBefore, normalized.maxTlp))!, or(isNull(tlpAuditLog.tlpAfter), lte(tlpAuditLog.tlpAfter, normalized.maxTlp))!);
        }
        if (normalized.resourceType) conditions.push(inArray(tlpAuditLog.resourceType, normalized.resourceType));
        if (normalized.action) conditions.push(inArray(tlpAuditLog.action, normalized.action));
        if (normalized.resourceId !== undefined) conditions.push(eq(tlpAuditLog.resourceId, normalized.resourceId));
        if (normalized.actorId !== undefined) {
          conditions.push(or(eq(tlpAuditLog.actorUserId, normalized.actorId), eq(tlpAuditLog.actorKeyId, normalized.actorId))!);
        }
        if (normalized.outcome !== undefined) conditions.push(eq(tlpAuditLog.outcome, normalized.outcome));
        if (normalized.from !== undefined) conditions.push(gte(tlpAuditLog.at, normalized.from));
        if (normalized.to !== undefined) conditions.push(lt(tlpAuditLog.at, normalized.to));
        const rows = await guard(
          db
            .select(tlpAuditEntryRow)
            .from(tlpAuditLog)
            .where(and(eq(tlpAuditLog.organizationId, organizationId), ...conditions, ...keyset(tlpAuditLog.id, page)))
            .orderBy(desc(tlpAuditLog.id))
            .limit(limit),
        );
        return rows.map((row) => tlpAuditEntryFromRow(row as unknown as TlpAuditEntryRow));
      },
      async chain(organizationId, afterSeq, limit) {
        reading();
        const count = pageLimit({ limit });
        if (count === 0) return [];
        const rows = await guard(
          db
            .select(tlpAuditEntryRow)
            .from(tlpAuditLog)
            .where(and(eq(tlpAuditLog.organizationId, organizationId), gt(tlpAuditLog.seq, afterSeq)))
            .orderBy(tlpAuditLog.seq)
            .limit(count),
        );
        return rows.map((row) => tlpAuditEntryFromRow(row as unknown as TlpAuditEntryRow));
      },
    },

  });
}

const caseRow = rowSelection(cases);
const auditEntryRow = rowSelection(auditLog);
const tlpAuditEntryRow = rowSelection(tlpAuditLog);
/** The TLP audit chain's head, kept with the organization (typed here: a declared table's columns carry no value type). */
const chainHead = { seq: sql<number>`${organizations.tlpAuditSeq}`, hash: sql<string>`${organizations.tlpAuditHash}` };

/** Rows per multi-row INSERT of appendMany: 1 000 rows of 13 columns stay below PostgreSQL's 65 535 parameters. */
const rowsPerInsert = 1000;

/**
 * Inserts with `ON CONFLICT DO NOTHING` and reports "no row written" as a conflict. Unlike a
 * failed INSERT, this leaves the surrounding transaction usable, as a refused statement does on
 * SQLite, so a unit of work may catch the conflict and carry on, on both adapters. Only on that
 * refusal are the table's unique keys probed, to say which one clashed (the primary key if none
 * of the others did).
 */
async function insertOrConflict(
  statement: PromiseLike<{ id: string }[]>,
  table: string,
  uniqueKeys: [constraint: string, taken: () => Promise<boolean>][],
): Promise<void> {
  const written = await guard(statement);
  if (written.length > 0) return;
  for (const [constraint, taken] of uniqueKeys) {
    if (await taken()) throw uniqueViolation({ table, constraint });
  }
  throw uniqueViolation({ table, constraint: `${table}_pkey` });
}

function caseConditions(filter: CaseFilter): SQL[] {
  const conditions: SQL[] = [lte(cases.tlp, filter.maxTlp)];
  if (filter.statusValue) conditions.push(inArray(cases.statusValue, filter.statusValue));
  if (filter.severity) conditions.push(inArray(cases.severity, filter.severity));
  if (filter.tlp) conditions.push(inArray(cases.tlp, filter.tlp));
  if (filter.assigneeId) conditions.push(inArray(cases.assigneeId, filter.assigneeId));
  if (filter.source) conditions.push(inArray(cases.source, filter.source));
  if (filter.typeValue) conditions.push(inArray(cases.typeValue, filter.typeValue));
  if (filter.tag) {
    // A case matches a tag when any of its tag objects has that name: jsonb containment, which
    // the GIN index on tags serves.
    const matches = filter.tag.map((name) => sql`${cases.tags} @> ${JSON.stringify([{ name }])}::jsonb`);
    conditions.push(or(...matches) ?? sql`false`);
  }
  if (filter.createdAfter !== undefined) conditions.push(gt(cases.createdAt, filter.createdAfter));
  if (filter.createdBefore !== undefined) conditions.push(lt(cases.createdAt, filter.createdBefore));
  return conditions;
}

/** Newest first: a page continues strictly below the last id of the previous one. */
function keyset(id: PgColumn, page: PageRequest): SQL[] {
  return page.beforeId === undefined ? [] : [lt(id, page.beforeId)];
}
