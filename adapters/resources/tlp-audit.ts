/**
 * The TLP audit log, declared once: both dialects' tables, rows and SQL come from this
 * declaration. Append-only (migration 0001's triggers refuse UPDATE and DELETE) and hash-chained
 * per organization; the chain's head lives in organizations.tlp_audit_seq / tlp_audit_hash, out
 * of the Organization record: a writing unit reads and holds it once and moves it in memory, and
 * the row is written once when the unit ends (organization-counters.ts). The chain read in seq
 * order is SQL of its own here, written once for both dialects.
 */
import { highestTlp } from "../../core/access/clearance.js";
import { CaseKitError } from "../../core/errors.js";
import type { TlpAuditRepository } from "../../core/ports/storage.js";
import { extendsChain } from "../../core/tlp/chain.js";
import type { StoredTlpAuditEntry, TlpAuditEntry, TlpAuditFilter, TlpAuditItem, TlpOutcome } from "../../core/tlp/types.js";
import { expandTlpAudit } from "../../core/log/groups.js";
import { tlpActions, tlpResourceTypes } from "../../core/tlp/types.js";
import { enumOf, id, int, nullableJson, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";
import { groupedPage, mergeNewestFirst } from "../shared/grouped-pages.js";
import type { StoredRecords } from "../../core/log/compact-records.js";
import { compactRecords, recordsOf } from "../../core/log/compact-records.js";
import type { ChunkedItems } from "../../core/log/groups.js";
import type { GroupItems, ItemsCodec } from "../shared/group-items.js";
import { eachInTurn } from "../shared/group-items.js";
import { timestampBound } from "../shared/timestamp-bound.js";
import type { UnitState } from "../shared/unit-state.js";
import { checkReading, checkWriting } from "../shared/unit-state.js";
import type { HeldCounters } from "./organization-counters.js";
import { organizationCounters } from "./organization-counters.js";

const outcomes = ["allowed", "denied"] as const satisfies readonly TlpOutcome[];

export const tlpAuditResource = defineResource({
  table: "tlp_audit_log",
  noun: "A TLP audit entry",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    /** Position in the organization's chain: 1, 2, 3 … without gaps. */
    seq: int(),
    actorUserId: text({ nullable: true }),
    actorKeyId: text({ nullable: true }),
    resourceType: enumOf(tlpResourceTypes),
    resourceId: text(),
    action: enumOf(tlpActions),
    tlpBefore: int({ nullable: true }),
    tlpAfter: int({ nullable: true }),
    outcome: enumOf(outcomes),
    ip: text({ nullable: true }),
    userAgent: text({ nullable: true }),
    requestId: text({ nullable: true }),
    /** Hashed as the canonical ISO text stored here, so the chain verifies once read back. */
    at: timestamp(),
    prevHash: text(),
    hash: text(),
    /**
     * A group entry's records (core/tlp/types.ts TlpAuditGroupEntry), covered by its hash: by column
     * (core/log/compact-records.ts), or the marker of their chunk rows; null for a single entry.
     */
    items: nullableJson<StoredRecords<TlpAuditItem> | ChunkedItems>(),
  },
  unique: [
    {
      name: "tlp_audit_log_organization_id_seq_unique",
      columns: ["organizationId", "seq"],
      conflict: "The organization's TLP audit log already has an entry at this position",
    },
  ],
  // A page is one range of one of these, newest first: one resource's entries walk their own, and
  // the group entries (read beside the single ones, then expanded) a small index of their own.
  indexes: [
    { name: "tlp_audit_log_organization_id_idx", columns: ["organizationId", "id"] },
    { name: "tlp_audit_log_organization_id_resource_id_idx", columns: ["organizationId", "resourceId", "id"] },
    { name: "tlp_audit_log_groups_idx", columns: ["organizationId", "id"], where: "items IS NOT NULL" },
  ],
  filters: {
    resourceId: { kind: "equals", column: "resourceId" },
    resourceType: { kind: "anyOf", column: "resourceType" },
    action: { kind: "anyOf", column: "action" },
    outcome: { kind: "equals", column: "outcome" },
    // The reader's clearance bounds both markings an entry names (null: no marking).
    maxTlp: { kind: "condition", column: "tlpBefore", sql: "(tlp_before IS NULL OR tlp_before <= ?) AND (tlp_after IS NULL OR tlp_after <= ?)", holdsFrom: highestTlp },
    actorId: { kind: "condition", column: "actorUserId", sql: "actor_user_id = ? OR actor_key_id = ?" },
    from: { kind: "atLeast", column: "at" },
    to: { kind: "below", column: "at" },
    // Which rows a read takes: single entries (filtered whole in SQL) or group entries (filtered
    // in SQL on what the group shares, then item by item once expanded).
    single: { kind: "condition", column: "items", sql: "items IS NULL" },
    grouped: { kind: "condition", column: "items", sql: "items IS NOT NULL" },
  },
});

/** A TLP audit row as stored: a single entry (items null) or a group entry. */
type TlpAuditRow = TlpAuditEntry & { items: StoredRecords<TlpAuditItem> | ChunkedItems | null };

/** Compile-time proof that the declaration stores exactly the core's TlpAuditEntry, and a group's items. */
export const _tlpAuditRecordMatches: Same<RecordOf<typeof tlpAuditResource>, TlpAuditRow> = true;

/** Whether an expanded item is one the list's filter keeps: the port's per-entry semantics. */
function itemMatches(entry: TlpAuditEntry, filter: TlpAuditFilter): boolean {
  const within = (tlp: number | null) => filter.maxTlp === undefined || tlp === null || tlp <= filter.maxTlp;
  return (
    (filter.resourceType === undefined || filter.resourceType.includes(entry.resourceType)) &&
    (filter.action === undefined || filter.action.includes(entry.action)) &&
    (filter.resourceId === undefined || entry.resourceId === filter.resourceId) &&
    (filter.outcome === undefined || entry.outcome === filter.outcome) &&
    within(entry.tlpBefore) &&
    within(entry.tlpAfter)
  );
}

/** The chain's statement, built once per dialect. */
function tlpAuditSql(dialect: Dialect) {
  const p = dialect.param;
  return {
    /** One range of tlp_audit_log_organization_id_seq_unique, in order. */
    chain: `SELECT ${dialect.selectRecord(tlpAuditResource)} FROM tlp_audit_log WHERE organization_id = ${p(1)} AND seq > ${p(2)} ORDER BY seq LIMIT ${p(3)}`,
  };
}
export const tlpAuditSqlFor = oncePerDialect(tlpAuditSql);

export function tlpAuditRepository(
  entries: DeclaredRepository<TlpAuditRow, FilterValues<typeof tlpAuditResource>>,
  groups: GroupItems,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
): TlpAuditRepository {
  const sql = tlpAuditSqlFor(dialect);
  const counters = organizationCounters(dialect, executor, unit);
  const codec: ItemsCodec<TlpAuditItem> = {
    encode: (items) => compactRecords(items, dialect.jsonKeyOrder),
    decode: (stored) => recordsOf(stored as StoredRecords<TlpAuditItem>),
  };
  // No await inside the literal (see audit.ts toRow).
  const toRow = async (entry: StoredTlpAuditEntry): Promise<TlpAuditRow> => {
    const items = entry.items ? ((await groups.store("tlp", entry.organizationId, entry.id, entry.items, codec)) as TlpAuditRow["items"]) : null;
    // Member by member: V8 adds members to a spread's copy slowly.
    return {
      id: entry.id,
      organizationId: entry.organizationId,
      seq: entry.seq,
      actorUserId: entry.actorUserId,
      actorKeyId: entry.actorKeyId,
      resourceType: entry.resourceType,
      resourceId: entry.resourceId,
      action: entry.action,
      tlpBefore: entry.tlpBefore,
      tlpAfter: entry.tlpAfter,
      outcome: entry.outcome,
      ip: entry.ip,
      userAgent: entry.userAgent,
      requestId: entry.requestId,
      at: entry.at,
      prevHash: entry.prevHash,
      hash: entry.hash,
      items,
    };
  };
  /** What the port hands back: a group with its items (from its chunk rows when there are), a single entry without the member. */
  const fromRow = async ({ items, ...entry }: TlpAuditRow): Promise<StoredTlpAuditEntry> =>
    items === null ? entry : { ...entry, items: await groups.load("tlp", entry.organizationId, entry.id, items, codec) };
  /** Moves the held head to the run's last entry; the row is written when the unit ends. */
  function move(held: HeldCounters | undefined, last: TlpAuditEntry): void {
    if (!held) return;
    held.head = { seq: last.seq, hash: last.hash };
    counters.changed(last.organizationId);
  }
  return {
    // Inside a transaction the head is held until the unit ends, so two writers never fork the
    // chain, and read once: later calls see the unit's own appends. In `read`, a plain read of
    // the committed head.
    async head(organizationId) {
      checkReading(unit);
      const found = unit.writable ? await counters.held(organizationId) : await counters.committed(organizationId);
      return found ? { ...found.head } : { seq: 0, hash: "" };
    },
    async append(entry) {
      checkWriting(unit);
      // Checked against the held head (read and held here, for a caller that did not read the head
      // in this unit): a forked or gapped chain is refused before anything is written. An unknown
      // organization falls through to the insert, which its foreign key fails.
      const held = await counters.held(entry.organizationId);
      if (held && (entry.seq !== held.head.seq + 1 || entry.prevHash !== held.head.hash)) {
        throw new CaseKitError("conflict", "The TLP audit entry does not follow the organization's last entry");
      }
      await entries.insert(await toRow(entry));
      move(held, entry);
    },
    async appendMany(run) {
      checkWriting(unit);
      const last = run.at(-1);
      if (last === undefined) return;
      const held = await counters.held(last.organizationId);
      if (held && !extendsChain(held.head, run)) {
        throw new CaseKitError("conflict", "The TLP audit entries do not follow the organization's last entry");
      }
      const rows: TlpAuditRow[] = [];
      for (const entry of run) rows.push(await toRow(entry));
      if ((await entries.insertMany(rows)) < run.length) throw new CaseKitError("conflict", "A TLP audit entry with this id or sequence number exists already");
      move(held, last);
    },
    // Two newest-first reads merged: the single entries the filter matches (one range of an
    // index, as before groups existed), and the group entries of the same actor and time range,
    // expanded and filtered item by item.
    async list(organizationId, filter: TlpAuditFilter, page) {
      const limit = pageLimit(page);
      const bounds = { from: timestampBound("from", filter.from), to: timestampBound("to", filter.to) };
      const { from: _from, to: _to, ...rest } = filter;
      // The conditions `single` and `grouped` bind nothing: any value switches them on.
      const on: TlpAuditItem[] = [];
      const stream = (filters: FilterValues<typeof tlpAuditResource>, grouped: boolean) => ({
        rows: async (before: string | undefined, count: number) => eachInTurn(await entries.list(organizationId, filters, { limit: count, order: "desc" as const, after: before }), fromRow),
        // A cursor inside a group: the group itself (only the group stream holds groups).
        row: async (id: string) => {
          const row = grouped ? await entries.findById(organizationId, id) : null;
          return row && fromRow(row);
        },
        expand: (row: StoredTlpAuditEntry) => (grouped ? expandTlpAudit(row).filter((entry) => itemMatches(entry, filter)) : [row as TlpAuditEntry]),
      });
      const single = await groupedPage(stream({ ...rest, ...bounds, single: on }, false), limit, page.beforeId);
      const grouped = await groupedPage(stream({ actorId: filter.actorId, ...bounds, grouped: on }, true), limit, page.beforeId);
      return mergeNewestFirst(single, grouped, limit);
    },
    async chain(organizationId, afterSeq, limit) {
      checkReading(unit);
      const count = pageLimit({ limit });
      if (count === 0) return [];
      return eachInTurn(await executor.records<TlpAuditRow>(sql.chain, [organizationId, afterSeq, count]), fromRow);
    },
  };
}
