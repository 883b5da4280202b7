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
