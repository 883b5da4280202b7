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
