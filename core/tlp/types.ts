export const tlpResourceTypes = ["case", "alert", "task", "comment", "observable", "evidence"] as const;
export type TlpResourceType = (typeof tlpResourceTypes)[number];

export const tlpActions = ["view", "edit", "delete", "export", "change"] as const;
export type TlpAction = (typeof tlpActions)[number];

export type TlpOutcome = "allowed" | "denied";

/**
 * One entry of the TLP audit log: append-only (both adapters refuse UPDATE and DELETE) and
 * hash-chained per organization, so a verifier finds the first row that was altered.
 */
export interface TlpAuditEntry {
  id: string;
  organizationId: string;
  /** Position in the organization's chain: 1, 2, 3 … without gaps. */
  seq: number;
  actorUserId: string | null;
  actorKeyId: string | null;
  resourceType: TlpResourceType;
  resourceId: string;
  action: TlpAction;
  tlpBefore: number | null;
  tlpAfter: number | null;
  outcome: TlpOutcome;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  at: string;
  /** Hash of the previous entry of the organization's chain ("" for the first). */
  prevHash: string;
  /** SHA-256 over prevHash and this entry's fields (core/tlp/chain.ts). */
  hash: string;
}

/** One record of a group entry: what the entry would have said of it alone. */
export interface TlpAuditItem {
  resourceId: string;
  action: TlpAction;
  tlpBefore: number | null;
  tlpAfter: number | null;
  outcome: TlpOutcome;
}

/**
 * One entry of the chain written for many records at once (a bulk operation, a list's views):
 * one row, one seq, one hash, and the hash covers the items (core/tlp/chain.ts), so the id list
 * is as tamper-evident as any entry. Its own resourceId is the bulk request id (or the list's
 * first record), its markings the lowest of the items'. The log's readers see one entry per item
 * (core/log/groups.ts): the group's fields with the item's, and the id `<group id>.<position>`;
 * each is left out or kept by the reader's clearance on its own.
 */
export type TlpAuditGroupEntry = TlpAuditEntry & { items: readonly TlpAuditItem[] };

/** What the chain stores: single entries, and group entries with their items. */
export type StoredTlpAuditEntry = TlpAuditEntry & { items?: readonly TlpAuditItem[] };

export interface TlpAuditFilter {
  /**
   * The reader's clearance: entries whose TLP before or after is above it are left out, so the log
   * never shows a record, or a marking, its reader may not see. Entries without a TLP (null) stay.
   * The core always sets it; absent (storage-level reads), nothing is left out.
   */
  maxTlp?: number;
  resourceType?: TlpResourceType[];
  action?: TlpAction[];
  resourceId?: string;
  actorId?: string;
  outcome?: TlpOutcome;
  from?: string;
  to?: string;
}
