/**
 * Audit events: one per change of one record (bulk operations included), written in the change's
 * unit of work, hash-chained per organization (core/log/chain.ts), append-only in storage.
 */

export const auditActorTypes = ["user", "apiKey", "system", "automation"] as const;
export type AuditActorType = (typeof auditActorTypes)[number];

/**
 * Who did it. A key acting for its owner is `apiKey` with the key's id and `onBehalfOf` the
 * owner's user id; a person signed in (session) or known to the embedding host is `user`;
 * casekit's own jobs are `system` (retention), rules acting on their own are `automation`.
 */
export interface AuditActor {
  type: AuditActorType;
  /** The user's or key's id; null where nobody is known (a sign-in for an unknown account, a system job). */
  id: string | null;
  onBehalfOf?: string;
}

export const auditOutcomes = ["success", "denied", "failure"] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];

/** What an event is about. `caseId` is set for a case and for what lives in one (tasks, observables, comments), so a case's trail is read by index. */
export interface AuditTarget {
  type: string;
  id: string;
  caseId?: string;
}

/** One changed value: a dotted path (`title`, `customFields.severity`), before and after. */
export interface AuditChange {
  path: string;
  before: unknown;
  after: unknown;
}

/** An audit event as readers see it. */
export interface AuditEvent {
  id: string;
  organizationId: string;
  /** Position in the organization's chain: 1, 2, 3 … without gaps (each record of a bulk has its own). */
  seq: number;
  at: string;
  actor: AuditActor;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  /** `<resource>.<verb>`, e.g. `case.updated` (README "Audit events" lists them). */
  action: string;
  target: AuditTarget;
  outcome: AuditOutcome;
  changes: AuditChange[];
  /** The bulk request this event is one record of (`bulk_…`), or null. */
  bulkRequestId: string | null;
  /**
   * The record's effective TLP when the event was written (null for records without a marking):
   * readers above it see the paths that changed, not the values.
   */
  tlp: number | null;
}

/** One record of a group event (a bulk operation): what its own event would have said. */
export interface AuditItem {
  resourceId: string;
  caseId?: string | null;
  tlp?: number | null;
  changes: AuditChange[];
}

/**
 * What a writer hands the log: an event without its chain position. The storage chains it
 * (seq, prevHash, hash: core/audit/chain.ts) against the organization's head, held until the
 * unit ends. `items` makes it a group: one row covering one position per item.
 */
export interface NewAuditEvent extends Omit<AuditEvent, "seq"> {
  items?: readonly AuditItem[];
}

/**
 * An audit row as the chain holds it: a single event or a group (items), its first position
 * `seq`, the previous row's hash and its own. A group's readers see one event per item
 * (core/audit/expand.ts) with seq, seq+1 … and the id `<group id>.<position>`.
 */
export interface ChainedAuditRow extends NewAuditEvent {
  seq: number;
  prevHash: string;
  hash: string;
}

/** A signed checkpoint: the last pruned row's position and hash; verification starts from it. */
export interface AuditCheckpoint {
  id: string;
  organizationId: string;
  /** The last position pruned (the last of its row's range). */
  seq: number;
  hash: string;
  at: string;
  /** HMAC-SHA256 over organizationId, seq, hash and at (core/audit/checkpoint.ts). */
  signature: string;
}

export interface AuditEventFilter {
  actorId?: string;
  actorType?: AuditActorType[];
  action?: string[];
  targetType?: string[];
  targetId?: string;
  caseId?: string;
  outcome?: AuditOutcome;
  /** At or after. */
  from?: string;
  /** Before. */
  to?: string;
  /** A phrase found (ignoring case) in the action, the target's type or the target's id. */
  q?: string;
}
