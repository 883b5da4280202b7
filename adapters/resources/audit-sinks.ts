/**
 * Organizations' syslog sinks and their cursors, declared once: both dialects' tables, rows and
 * SQL come from these declarations. The sink's grant is flattened into columns of its own (as a
 * webhook subscription's); the cursor is a row per sink, keyed by the sink's id, moved by every
 * delivered batch, so it lives apart from the sink the API changes.
 */
import type { SyslogSinkConfigDocument } from "../../core/audit-sinks/config.js";
import { auditSinkStatuses } from "../../core/audit-sinks/types.js";
import type { AuditSinkCursor, StoredAuditSink } from "../../core/audit-sinks/types.js";
import type { Scope } from "../../core/access/scopes.js";
import type { AuditSinkRepository } from "../../core/ports/storage.js";
import { enumOf, id, int, internal, json, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { recordOf } from "../declare/rows.js";
import { pageLimit } from "../shared/case-filter.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";

export const auditSinkResource = defineResource({
  table: "audit_sinks",
  noun: "An audit sink",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    name: text(),
    config: json<SyslogSinkConfigDocument>(),
    status: enumOf(auditSinkStatuses),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    createdBy: text({ nullable: true }),
    /** What its creator held (core/webhooks/grant.ts): it delivers nothing more. */
    grantKeyId: text({ nullable: true }),
    grantTlpClearance: int(),
    grantScopes: json<Scope[]>(),
  },
  fixed: ["createdAt", "createdBy", "grantKeyId", "grantTlpClearance", "grantScopes"],
  indexes: [
    { name: "audit_sinks_organization_id_idx", columns: ["organizationId", "id"] },
    // The delivery host reads every organization's active sinks, in id order.
    { name: "audit_sinks_status_id_idx", columns: ["status", "id"] },
  ],
});

export const auditSinkCursorResource = defineResource({
  table: "audit_sink_cursors",
  noun: "An audit sink cursor",
  columns: {
    /** The sink's id. */
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    /** The seq of the last event handed to the receiver. */
    seq: int({ big: true }),
    updatedAt: timestamp(),
    /**
     * The delivery host that runs the sink, until when: one host at a time, so hosts sharing a
     * database never send an event twice (server/audit-delivery/sink-host.ts). Not the record's:
     * moving the cursor never touches them.
     */
    leaseHolder: internal(text({ nullable: true })),
    leaseUntil: internal(timestamp({ nullable: true })),
  },
});

type AuditSinkRecord = RecordOf<typeof auditSinkResource>;

/** Compile-time proofs that the declarations store exactly the core's records, the grant flattened. */
type Flattened = Omit<StoredAuditSink, "grant"> & { grantKeyId: string | null; grantTlpClearance: number; grantScopes: Scope[] };
export const _auditSinkRecordMatches: Same<AuditSinkRecord, Flattened> = true;
export const _auditSinkCursorRecordMatches: Same<RecordOf<typeof auditSinkCursorResource>, AuditSinkCursor> = true;

const toRecord = ({ grant, ...sink }: StoredAuditSink): AuditSinkRecord => ({
  ...sink,
  grantKeyId: grant.keyId,
  grantTlpClearance: grant.tlpClearance,
  grantScopes: grant.scopes,
});

const fromRecord = ({ grantKeyId, grantTlpClearance, grantScopes, ...sink }: AuditSinkRecord): StoredAuditSink => ({
  ...sink,
  grant: { keyId: grantKeyId, tlpClearance: grantTlpClearance, scopes: grantScopes },
});

/** Every organization's active sinks after an id, in id order (audit_sinks_status_id_idx). */
const activeSqlFor = oncePerDialect(
  (dialect: Dialect) =>
    `SELECT ${auditSinkResource.fields.map((f) => f.name).join(", ")} FROM audit_sinks WHERE status = 'active' AND id > ${dialect.param(1)} ORDER BY id LIMIT ${dialect.param(2)}`,
);

/** One cursor, its row held until the unit ends (dialect.holdRow). */
const heldCursorSqlFor = oncePerDialect(
  (dialect: Dialect) => `SELECT seq FROM audit_sink_cursors WHERE organization_id = ${dialect.param(1)} AND id = ${dialect.param(2)}${dialect.holdRow}`,
);

/** Takes the lease when it is free, expired or already the holder's; renews it then. */
const claimLeaseSqlFor = oncePerDialect(
  (dialect: Dialect) =>
    `UPDATE audit_sink_cursors SET lease_holder = ${dialect.param(1)}, lease_until = ${dialect.param(2)} WHERE organization_id = ${dialect.param(3)} AND id = ${dialect.param(4)} AND (lease_holder IS NULL OR lease_holder = ${dialect.param(5)} OR lease_until < ${dialect.param(6)})`,
);

const releaseLeaseSqlFor = oncePerDialect(
  (dialect: Dialect) =>
    `UPDATE audit_sink_cursors SET lease_holder = NULL, lease_until = NULL WHERE organization_id = ${dialect.param(1)} AND id = ${dialect.param(2)} AND lease_holder = ${dialect.param(3)}`,
);

/** Moves the cursor only while the holder's lease runs. */
const moveLeasedCursorSqlFor = oncePerDialect(
  (dialect: Dialect) =>
    `UPDATE audit_sink_cursors SET seq = ${dialect.param(1)}, updated_at = ${dialect.param(2)} WHERE organization_id = ${dialect.param(3)} AND id = ${dialect.param(4)} AND lease_holder = ${dialect.param(5)} AND lease_until >= ${dialect.param(6)}`,
);

export function auditSinkRepository(
  sinks: DeclaredRepository<AuditSinkRecord, FilterValues<typeof auditSinkResource>>,
  cursors: DeclaredRepository<AuditSinkCursor, FilterValues<typeof auditSinkCursorResource>>,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
): AuditSinkRepository {
  const { reading, writing } = unitGuards(unit);
  const active = activeSqlFor(dialect);
  const heldCursor = heldCursorSqlFor(dialect);
  const claimLease = claimLeaseSqlFor(dialect);
  const releaseLease = releaseLeaseSqlFor(dialect);
  const moveLeasedCursor = moveLeasedCursorSqlFor(dialect);
  return {
    insert: (sink) => sinks.insert(toRecord(sink)),
    async findById(organizationId, id) {
      const found = await sinks.findById(organizationId, id);
      return found && fromRecord(found);
    },
    update: (sink) => sinks.update(toRecord(sink)),
    async delete(organizationId, id) {
      await cursors.delete(organizationId, id);
      return sinks.delete(organizationId, id);
    },
    async list(organizationId, page) {
      const found = await sinks.list(organizationId, {}, { limit: pageLimit(page), order: "desc", after: page.beforeId });
      return found.map(fromRecord);
    },
    async activeAfter(afterId, limit) {
      reading();
      return (await executor.all(active, [afterId ?? "", limit])).map((row) => fromRecord(recordOf<AuditSinkRecord>(auditSinkResource, row)));
    },
    async cursor(organizationId, sinkId) {
      return (await cursors.findById(organizationId, sinkId))?.seq ?? 0;
    },
    async heldCursor(organizationId, sinkId) {
      writing();
      const [row] = await executor.all(heldCursor, [organizationId, sinkId]);
      return row ? Number(row.seq) : 0;
    },
    setCursor: (organizationId, sinkId, seq, at) => cursors.upsert({ id: sinkId, organizationId, seq, updatedAt: at }),
    async claimLease(organizationId, sinkId, holder, now, until) {
      writing();
      return (await executor.run(claimLease, [holder, until, organizationId, sinkId, holder, now])) === 1;
    },
    async releaseLease(organizationId, sinkId, holder) {
      writing();
      await executor.run(releaseLease, [organizationId, sinkId, holder]);
    },
    async setLeasedCursor(organizationId, sinkId, holder, seq, at) {
      writing();
      return (await executor.run(moveLeasedCursor, [seq, at, organizationId, sinkId, holder, at])) === 1;
    },
  };
}
