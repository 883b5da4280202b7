/** One entry of the general audit trail: every mutation writes one, in the same transaction. */
export interface AuditEntry {
  id: string;
  organizationId: string;
  actorUserId: string | null;
  actorKeyId: string | null;
  /** `<resource>.<verb>`, e.g. `case.created`. */
  action: string;
  resourceType: string;
  resourceId: string;
  /** The fields that changed, before and after; null where nothing is worth recording. */
  changes: Record<string, { from: unknown; to: unknown }> | null;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  at: string;
  /** The bulk request this entry is one record of (`bulk_…`), or null. */
  bulkRequestId: string | null;
}

/** One record of a group entry: its id and what changed on it. */
export interface AuditItem {
  resourceId: string;
  changes: Record<string, { from: unknown; to: unknown }> | null;
}

/**
 * One entry written for many records at once (a bulk operation): stored as one row, whose own
 * `resourceId` is the bulk request id and `changes` null. Readers never see it whole: every
 * list shows one AuditEntry per item (core/log/groups.ts), in item order, with the item's
 * resourceId and changes, the group's other fields, and the id `<group id>.<position>`.
 */
export type AuditGroupEntry = AuditEntry & { items: readonly AuditItem[] };
