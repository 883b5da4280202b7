import type { Scope } from "../access/scopes.js";
import type { PageRequest, UnitOfWork } from "../ports/storage.js";
import type { TlpResourceType } from "../tlp/types.js";

/** A record a bulk operation may act on, with the marking that governs access to it. */
export interface BulkCandidate<T> {
  record: T;
  /**
   * The highest marking among the record's ancestors (a task's case's; 0 for a root). With the
   * record's own it makes its effective TLP (core/tlp/effective.ts), which decides access, the
   * events' TLP and the TLP audit entries. Above the caller's clearance → skipped as tlp_restricted.
   */
  inherited: number;
  /**
   * The record, or the case it belongs to, is closed (core/access/closed-records.ts): a bulk
   * operation never changes it and reports it skipped as record_closed.
   */
  closed?: boolean;
}

/** A record left alone, and why (a stable snake_case code). */
export interface BulkSkip {
  skip: string;
}

export interface BulkSkipped {
  id: string;
  code: string;
}

/**
 * One bulk operation on one resource, as the resource's service describes it to runBulk. It is
 * built per request, so its callbacks close over the caller and the checked body.
 */
export interface BulkPlan<T extends { id: string; tlp: number }, V extends string> {
  resourceType: TlpResourceType;
  /** Checked before anything is read: every record of the operation needs it. */
  scope: Scope;
  /** The name of the count of changed records in the answer: updated, deleted, assigned … */
  verb: V;
  /** The event and audit action of every changed record, e.g. `task.updated`. */
  event: string;
  /** The TLP audit action of a change that keeps the marking (a change of marking is "change"). */
  tlpAction: "edit" | "delete";
  /** Runs first inside the transaction: checks that need storage (e.g. an assignee exists). */
  prepare?(tx: UnitOfWork): Promise<void>;
  /**
   * The live records of the caller's organization among `ids` (at most 500 per call), in any
   * order; ids it does not hand back are reported as not_found. One query per call, not per id.
   */
  load(tx: UnitOfWork, ids: readonly string[]): Promise<BulkCandidate<T>[]>;
  /**
   * One keyset page (newest first, ids below `page.beforeId`) of the live records the
   * selectAll filters match, leaving out what lies above the caller's clearance exactly as the
   * list endpoint does. Served by an index, so the last page costs what the first does.
   */
  select(tx: UnitOfWork, page: PageRequest): Promise<BulkCandidate<T>[]>;
  /**
   * The record after the operation, or why it is left alone. Pure: no storage, no clock; `at` is
   * the operation's time (ISO 8601), the same for every record.
   */
  apply(record: T, at: string): T | BulkSkip;
  /** Writes the changed records (one call per page: batch them). */
  save(tx: UnitOfWork, records: readonly T[]): Promise<void>;
}

export type BulkResult<V extends string> = { matched: number; skipped: BulkSkipped[]; bulkRequestId: string } & Record<V, number>;
