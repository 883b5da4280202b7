/**
 * The audit events, declared once: both dialects' tables and rows come from this declaration;
 * the reads by chain position are SQL of their own here, written once for both dialects.
 *
 * Hash-chained per organization (core/audit/chain.ts): `append` chains each event against the
 * organization's head, held on the organization row from the unit's first append until it ends
 * (organization-counters.ts, beside the TLP chain's head). A group row (a bulk operation: one row
 * listing its records in `items`, in chunk rows when many: shared/group-items.ts) takes one
 * position per record, seq … last_seq, and reads as one event per record (core/audit/expand.ts).
 * Append-only: the migration's triggers refuse UPDATE, and DELETE of rows not behind the
 * organization's latest signed checkpoint (audit_checkpoints, retention).
 */
import { actorColumns, actorFromColumns } from "../../core/audit/actor.js";
import { chainAuditRowsInTurns, lastSeqOf } from "../../core/audit/chain.js";
import { breather } from "../shared/breather.js";
import { expandAuditRow } from "../../core/audit/expand.js";
import type { AuditActorType, AuditChange, AuditCheckpoint, AuditEvent, AuditEventFilter, AuditItem, AuditOutcome, ChainedAuditRow, NewAuditEvent } from "../../core/audit/types.js";
import { auditActorTypes, auditOutcomes } from "../../core/audit/types.js";
import { CaseKitError } from "../../core/errors.js";
import type { StoredRecords } from "../../core/log/compact-records.js";
import { compactRecords, recordsOf } from "../../core/log/compact-records.js";
import type { ChunkedItems } from "../../core/log/groups.js";
import { isChunked } from "../../core/log/groups.js";
import type { AuditRepository } from "../../core/ports/storage.js";
import { enumOf, id, int, nullableJson, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";
import type { GroupItems, ItemsCodec } from "../shared/group-items.js";
import { StoredGroupItems, chunkIdsOf, eachInTurn } from "../shared/group-items.js";
import { timestampBound } from "../shared/timestamp-bound.js";
import type { UnitState } from "../shared/unit-state.js";
import { checkReading, checkWriting } from "../shared/unit-state.js";
import { fromJsonOrNull, likePattern } from "../shared/values.js";
import { auditCheckpointResource } from "./audit-checkpoints.js";
import type { HeldCounters } from "./organization-counters.js";
import { organizationCounters } from "./organization-counters.js";

export const auditResource = defineResource({
  table: "audit_log",
  noun: "An audit event",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    /** The row's first position in the organization's chain (a group covers seq … last_seq). */
    seq: int({ default: 0 }),
    lastSeq: int({ default: 0 }),
    at: timestamp(),
    /** The actor (core/audit/actor.ts): its type, the user (or whom a key acts for) and the key. */
    actorType: enumOf(auditActorTypes, { default: "user" }),
    actorUserId: text({ nullable: true }),
    actorKeyId: text({ nullable: true }),
    requestId: text({ nullable: true }),
    ip: text({ nullable: true }),
    userAgent: text({ nullable: true }),
    action: text(),
    /** The target: its type and id (a group's: the bulk request id), and its case. */
    resourceType: text(),
    resourceId: text(),
    caseId: text({ nullable: true }),
    outcome: enumOf(auditOutcomes, { default: "success" }),
    /** [{ path, before, after }]; rows older than audit events hold a map `{ field: { from, to } }` or null. */
    changes: nullableJson<AuditChange[] | Record<string, { from: unknown; to: unknown }>>(),
    /** The bulk request this event is one record of, or null. */
    bulkRequestId: text({ nullable: true }),
    /** The record's effective TLP when written (a group's: per item); null for records without a marking. */
    tlp: int({ nullable: true }),
    /**
     * A group's records, each with its case, marking and changes, by column
     * (core/log/compact-records.ts), or the marker of their chunk rows; null for a single event.
     */
    items: nullableJson<StoredAuditItems>(),
    /** The previous row's hash ("" for the first chained row) and this row's (core/audit/chain.ts); "" on legacy rows. */
    prevHash: text({ default: "" }),
    hash: text({ default: "" }),
  },
  unique: [
    { name: "audit_log_organization_id_seq_unique", columns: ["organizationId", "seq"], conflict: "The organization's audit log already has an event at this position" },
    // Newest-first pages walk the seq index; readers following the log (pageAfter) this one.
    { name: "audit_log_organization_id_last_seq_unique", columns: ["organizationId", "lastSeq"], conflict: "The organization's audit log already has an event at this position" },
  ],
  indexes: [
    // A case's trail: its own rows by index, and the groups whose records live in several cases.
    { name: "audit_log_case_idx", columns: ["organizationId", "caseId", "seq"], where: "case_id IS NOT NULL" },
    { name: "audit_log_mixed_groups_idx", columns: ["organizationId", "seq"], where: "items IS NOT NULL AND case_id IS NULL" },
  ],
});

/** A group's items as its row holds them: by column or plain (older rows), or the marker of chunk rows. */
type StoredAuditItems = StoredRecords<AuditItem> | ChunkedItems;

/** An audit row as stored. */
interface AuditRow {
  id: string;
  organizationId: string;
  seq: number;
  lastSeq: number;
  at: string;
  actorType: AuditActorType;
  actorUserId: string | null;
  actorKeyId: string | null;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  action: string;
  resourceType: string;
  resourceId: string;
  caseId: string | null;
  outcome: AuditOutcome;
  changes: AuditChange[] | Record<string, { from: unknown; to: unknown }> | null;
  bulkRequestId: string | null;
  tlp: number | null;
  items: StoredAuditItems | null;
  prevHash: string;
  hash: string;
}

/** Compile-time proof that the declaration stores exactly these rows. */
export const _auditRecordMatches: Same<RecordOf<typeof auditResource>, AuditRow> = true;

/** The SQL of reads by position, built once per dialect. */
const auditSqlFor = oncePerDialect((dialect: Dialect) => {
  const p = dialect.param;
  const select = `SELECT ${dialect.selectRecord(auditResource)} FROM audit_log`;
  return {
    select,
    // The groups spanning several cases are few: SQLite's planner, without statistics, would walk the seq index instead.
    selectMixedGroups: `${select}${dialect.indexedBy?.("audit_log_mixed_groups_idx") ?? ""}`,
    chain: `${select} WHERE organization_id = ${p(1)} AND last_seq > ${p(2)} ORDER BY last_seq LIMIT ${p(3)}`,
    lastBefore: `${select} WHERE organization_id = ${p(1)} AND seq = (SELECT MAX(seq) FROM audit_log WHERE organization_id = ${p(2)} AND at < ${p(3)})`,
    start: `SELECT audit_legacy_seq FROM organizations WHERE id = ${p(1)}`,
    checkpoint: `SELECT ${dialect.selectRecord(auditCheckpointResource)} FROM audit_checkpoints WHERE organization_id = ${p(1)} ORDER BY seq DESC LIMIT 1`,
    // Only rows behind the latest checkpoint: the trigger allows nothing else.
    prunable: `SELECT id, items FROM audit_log WHERE organization_id = ${p(1)} AND last_seq <= (SELECT MAX(seq) FROM audit_checkpoints WHERE organization_id = ${p(2)}) ORDER BY last_seq LIMIT ${p(3)}`,
    deleteRows: `DELETE FROM audit_log WHERE organization_id = ${p(1)} AND ${dialect.anyOf("id", p(2))}`,
    deleteChunks: `DELETE FROM log_group_items WHERE organization_id = ${p(1)} AND ${dialect.anyOf("id", p(2))}`,
  };
});

/**
 * A group item's changes as stored (keyed by position) back as the list; rows older than audit
 * events hold a map `{ field: { from, to } }`, handed on as it is (core/audit/changes.ts reads it).
 */
function listedChanges(stored: unknown): AuditChange[] {
  if (Array.isArray(stored) || stored === null || typeof stored !== "object") return (stored ?? []) as AuditChange[];
  const entries = Object.entries(stored as Record<string, unknown>);
  if (!entries.every(([key, value]) => /^[0-9]+$/.test(key) && value !== null && typeof value === "object" && "path" in value)) return stored as AuditChange[];
  return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, value]) => value as AuditChange);
}

/**
 * Which rows a case's trail reads: the rows naming the case (one range of audit_log_case_idx), or
 * the groups whose records live in several cases (audit_log_mixed_groups_idx), judged item by item.
 */
export type CaseRows = "own" | "mixed";

/** A filter as SQL over a row (what a group shares), with its parameters from `param`; items are judged once expanded. */
function filterSql(dialect: Dialect, filter: AuditEventFilter, param: (value: unknown) => string, caseRows: CaseRows): string[] {
  const where: string[] = [];
  if (filter.actorId !== undefined) where.push(`(actor_user_id = ${param(filter.actorId)} OR actor_key_id = ${param(filter.actorId)})`);
  if (filter.actorType !== undefined) where.push(dialect.anyOf("actor_type", param(dialect.list(filter.actorType))));
  if (filter.action !== undefined) where.push(dialect.anyOf("action", param(dialect.list(filter.action))));
  if (filter.targetType !== undefined) where.push(dialect.anyOf("resource_type", param(dialect.list(filter.targetType))));
  if (filter.outcome !== undefined) where.push(`outcome = ${param(filter.outcome)}`);
  const from = timestampBound("from", filter.from);
  const to = timestampBound("to", filter.to);
  if (from !== undefined) where.push(`at >= ${param(from)}`);
  if (to !== undefined) where.push(`at < ${param(to)}`);
  if (filter.targetId !== undefined) where.push(`(items IS NOT NULL OR resource_id = ${param(filter.targetId)})`);
  if (filter.caseId !== undefined) where.push(caseRows === "own" ? `case_id = ${param(filter.caseId)}` : "items IS NOT NULL AND case_id IS NULL");
  if (filter.q !== undefined) {
    const pattern = likePattern(filter.q);
    where.push(`(items IS NOT NULL OR ${dialect.containsText("action", param(pattern))} OR ${dialect.containsText("resource_type", param(pattern))} OR ${dialect.containsText("resource_id", param(pattern))})`);
  }
  return where;
}

/** Whether an expanded event is one `filter` keeps: what the SQL judged of its row, and its own record. */
function eventMatches(event: AuditEvent, filter: AuditEventFilter): boolean {
  const q = filter.q?.toLowerCase();
  return (
    (filter.targetId === undefined || event.target.id === filter.targetId) &&
    (filter.caseId === undefined || event.target.caseId === filter.caseId) &&
    (q === undefined || [event.action, event.target.type, event.target.id].some((text) => text.toLowerCase().includes(q)))
  );
}

/** One batch of a page's rows: the rows after `position` in `direction`, that `filter` keeps of a row (exported for the query-plan tests). */
export function auditPageQuery(
  dialect: Dialect,
  page: { organizationId: string; direction: "asc" | "desc"; position: number | undefined; limit: number; filter: AuditEventFilter; caseRows: CaseRows },
): { text: string; params: unknown[] } {
  const { direction, position, filter } = page;
  const params: unknown[] = [page.organizationId];
  const param = (value: unknown) => {
    params.push(value);
    return dialect.param(params.length);
  };
  const where = [`organization_id = ${dialect.param(1)}`, ...filterSql(dialect, filter, param, page.caseRows)];
  if (position !== undefined) where.push(direction === "asc" ? `last_seq > ${param(position)}` : `seq < ${param(position)}`);
  // Ranges never overlap, so seq and last_seq order rows alike: each read follows its index.
  const order = direction === "desc" ? "seq DESC" : filter.caseId === undefined ? "last_seq" : "seq";
  const sql = auditSqlFor(dialect);
  const select = filter.caseId !== undefined && page.caseRows === "mixed" ? sql.selectMixedGroups : sql.select;
  return { text: `${select} WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ${param(page.limit)}`, params };
}

export function auditRepository(
  rows: DeclaredRepository<AuditRow, object>,
  checkpoints: DeclaredRepository<AuditCheckpoint, object>,
  groups: GroupItems,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
): AuditRepository {
  const sql = auditSqlFor(dialect);
  const counters = organizationCounters(dialect, executor, unit);
  // Each item's changes are stored keyed by position ("0", "1" …) rather than as a list: records
  // of one bulk then share a shape, and compactRecords stores each leaf they share (a path, a value
  // set on every record) once per row instead of once per record.
  const codec: ItemsCodec<AuditItem> = {
    encode: (items) => compactRecords(items.map((item) => ({ ...item, changes: Object.fromEntries(item.changes.map((change, i) => [String(i), change])) })), dialect.jsonKeyOrder),
    decode: (stored) => recordsOf(stored as StoredRecords<AuditItem>).map((item) => ({ ...item, changes: listedChanges(item.changes) })),
  };

  // Column by column, not a rest and a spread of the row: one of each per audit entry cost a
  // create about as much as the entry's JSON (the type keeps the list complete).
  // `written`: where the group's items already went (appendGroup), instead of storing them now.
  const toRow = async (row: ChainedAuditRow, written?: StoredGroupItems<AuditItem>): Promise<AuditRow> => {
    const { items, actor, target } = row;
    const { actorType, actorUserId, actorKeyId } = actorColumns(actor);
    return {
      id: row.id,
      organizationId: row.organizationId,
      seq: row.seq,
      lastSeq: lastSeqOf(row),
      at: row.at,
      actorType,
      actorUserId,
      actorKeyId,
      requestId: row.requestId,
      ip: row.ip,
      userAgent: row.userAgent,
      action: row.action,
      resourceType: target.type,
      resourceId: target.id,
      caseId: target.caseId ?? null,
      outcome: row.outcome,
      changes: row.changes,
      bulkRequestId: row.bulkRequestId,
      tlp: row.tlp,
      items: written ? ((await written.finish()) as StoredAuditItems) : items ? ((await groups.store("audit", row.organizationId, row.id, items, codec)) as StoredAuditItems) : null,
      prevHash: row.prevHash,
      hash: row.hash,
    };
  };

  /** The row as the core's chain holds it, with its group's items read back (from chunk rows when there are). */
  // Member by member (one per row read: an export reads millions): a rest and a spread plus
  // members cost microseconds each in V8, this a fraction of one.
  const fromRow = async (row: AuditRow): Promise<ChainedAuditRow> => {
    const { items, resourceType, resourceId, caseId } = row;
    // In the order readers have always had the members in (the row's, then actor, target, changes).
    const chained: ChainedAuditRow = {
      id: row.id,
      organizationId: row.organizationId,
      seq: row.seq,
      at: row.at,
      requestId: row.requestId,
      ip: row.ip,
      userAgent: row.userAgent,
      action: row.action,
      outcome: row.outcome,
      bulkRequestId: row.bulkRequestId,
      tlp: row.tlp,
      prevHash: row.prevHash,
      hash: row.hash,
      actor: actorFromColumns({ actorType: row.actorType, actorUserId: row.actorUserId, actorKeyId: row.actorKeyId }),
      target: caseId === null ? { type: resourceType, id: resourceId } : { type: resourceType, id: resourceId, caseId },
      // Legacy rows' map form is read as a list by expandAuditRow; the chain hashes what is stored.
      changes: (row.changes ?? []) as AuditChange[],
    };
    if (items !== null) chained.items = await groups.load("audit", row.organizationId, row.id, items, codec);
    return chained;
  };

  /** Chains `events` after the held head, writes them, and moves the head (stored when the unit ends). */
  async function appendRun(events: readonly NewAuditEvent[], written?: StoredGroupItems<AuditItem>): Promise<void> {
    checkWriting(unit);
    const first = events[0];
    if (first === undefined) return;
    if (events.some((event) => event.organizationId !== first.organizationId)) throw new CaseKitError("conflict", "One run of audit events belongs to one organization");
    const held: HeldCounters | undefined = await counters.held(first.organizationId);
    // An unknown organization: chained from the start, its foreign key then fails the insert.
    // A bulk's group row hashes every record's changes: between turns, not in one stretch.
    const chained = await chainAuditRowsInTurns(held?.audit ?? { seq: 0, hash: "" }, events, breather({ giveWay: unit.giveWay }));
    const stored: AuditRow[] = [];
    for (const row of chained) stored.push(await toRow(row, written));
    if (stored.length === 1) await rows.insert(stored[0]!);
    else if ((await rows.insertMany(stored)) < stored.length) throw new CaseKitError("conflict", "An audit event with this id already exists");
    if (held) {
      const last = chained.at(-1)!;
      held.audit = { seq: lastSeqOf(last), hash: last.hash };
      counters.changed(first.organizationId);
    }
  }

  /**
   * Events of `filter` in one direction from `bound`, at most `limit`. A case's trail reads its own
   * rows and the groups spanning several cases apart, each along its index, and merges them.
   */
  async function page(organizationId: string, direction: "asc" | "desc", bound: number | undefined, limit: number, filter: AuditEventFilter): Promise<AuditEvent[]> {
    checkReading(unit);
    if (filter.caseId === undefined) return walk(organizationId, direction, bound, limit, filter, "own");
    const own = await walk(organizationId, direction, bound, limit, filter, "own");
    const mixed = await walk(organizationId, direction, bound, limit, filter, "mixed");
    return [...own, ...mixed].sort((a, b) => (direction === "asc" ? a.seq - b.seq : b.seq - a.seq)).slice(0, limit);
  }

  /**
   * One stream of `page`: rows read in batches along the direction's index, expanded, judged, and
   * cut at the bound (a group may straddle it).
   */
  async function walk(organizationId: string, direction: "asc" | "desc", bound: number | undefined, limit: number, filter: AuditEventFilter, caseRows: CaseRows): Promise<AuditEvent[]> {
    const out: AuditEvent[] = [];
    if (limit === 0) return out;
    let position = bound;
    for (;;) {
      const query = auditPageQuery(dialect, { organizationId, direction, position, limit, filter, caseRows });
      const batch = await executor.records<AuditRow>(query.text, query.params);
      for (const row of await eachInTurn(batch, fromRow)) {
        const events = expandAuditRow(row);
        if (direction === "desc") events.reverse();
        for (const event of events) {
          if (position !== undefined && (direction === "asc" ? event.seq <= position : event.seq >= position)) continue;
          if (!eventMatches(event, filter)) continue;
          out.push(event);
          if (out.length === limit) return out;
        }
      }
      if (batch.length < limit) return out;
      const last = batch.at(-1)!;
      position = direction === "asc" ? last.lastSeq : last.seq;
    }
  }

  return {
    append: (event) => appendRun([event]),
    appendMany: (events) => appendRun(events),
    groupItems: (organizationId, id) => groups.writer("audit", organizationId, id, codec),
    async appendGroup(event, items) {
      // Only this storage's writer knows where the items went, and the row must list what it wrote.
      if (!(items instanceof StoredGroupItems) || items.log !== "audit" || items.organizationId !== event.organizationId || items.groupId !== event.id) throw new Error("casekit: appendGroup takes the writer groupItems gave for this entry");
      if (items.count !== event.items.length) throw new Error("casekit: a group's row must list the items its writer stored");
      await appendRun([event], items as StoredGroupItems<AuditItem>);
    },
    // Inside a writing unit the head is held until the unit ends; in `read`, the committed head.
    async head(organizationId) {
      checkReading(unit);
      const found = unit.writable ? await counters.held(organizationId) : await counters.committed(organizationId);
      return found ? { ...found.audit } : { seq: 0, hash: "" };
    },
    list: (organizationId, request, filter = {}) => page(organizationId, "desc", request.beforeSeq, pageLimit(request), filter),
    pageAfter: (organizationId, afterSeq, limit, filter = {}) => page(organizationId, "asc", afterSeq, pageLimit({ limit }), filter),
    async chain(organizationId, afterSeq, limit) {
      checkReading(unit);
      const count = pageLimit({ limit });
      if (count === 0) return [];
      return eachInTurn(await executor.records<AuditRow>(sql.chain, [organizationId, afterSeq, count]), fromRow);
    },
    async chainStart(organizationId) {
      checkReading(unit);
      const [start] = await executor.all(sql.start, [organizationId]);
      const [checkpoint] = await executor.records<AuditCheckpoint>(sql.checkpoint, [organizationId]);
      return { checkpoint: checkpoint ?? null, legacySeq: Number(start?.audit_legacy_seq ?? 0) };
    },
    async lastRowBefore(organizationId, at) {
      checkReading(unit);
      const [row] = await executor.records<AuditRow>(sql.lastBefore, [organizationId, organizationId, timestampBound("at", at)]);
      return row ? fromRow(row) : null;
    },
    addCheckpoint: (checkpoint) => checkpoints.insert(checkpoint),
    async prune(organizationId, limit) {
      checkWriting(unit);
      const doomed = await executor.all(sql.prunable, [organizationId, organizationId, pageLimit({ limit })]);
      if (doomed.length === 0) return 0;
      // A chunked group's chunk rows go with it (ids as shared/group-items.ts names them).
      const chunkIds = doomed.flatMap((row) => {
        const items = fromJsonOrNull<unknown>(row.items);
        return isChunked(items) ? chunkIdsOf("audit", String(row.id), items) : [];
      });
      if (chunkIds.length > 0) await executor.run(sql.deleteChunks, [organizationId, dialect.list(chunkIds)]);
      return executor.run(sql.deleteRows, [organizationId, dialect.list(doomed.map((row) => row.id))]);
    },
  };
}
