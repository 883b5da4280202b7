/**
 * Signed checkpoints of the audit events' chain (core/audit/checkpoint.ts): written by retention
 * before it deletes the rows behind one, so verification starts from the latest. Append-only
 * (the migration's triggers refuse UPDATE and DELETE); audit_log's delete trigger reads the
 * latest seq here.
 */
import type { AuditCheckpoint } from "../../core/audit/types.js";
import { id, int, text, timestamp } from "../declare/columns.js";
import type { RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";

export const auditCheckpointResource = defineResource({
  table: "audit_checkpoints",
  noun: "An audit checkpoint",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    /** The last position pruned, and its row's hash. */
    seq: int(),
    hash: text(),
    at: timestamp(),
    signature: text(),
  },
  unique: [{ name: "audit_checkpoints_organization_id_seq_unique", columns: ["organizationId", "seq"], conflict: "The organization already has a checkpoint at this position" }],
});

/** Compile-time proof that the declaration stores exactly the core's AuditCheckpoint. */
export const _auditCheckpointRecordMatches: Same<RecordOf<typeof auditCheckpointResource>, AuditCheckpoint> = true;
