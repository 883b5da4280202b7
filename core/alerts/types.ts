import type { CaseTag, RecordListFilter } from "../cases/types.js";
import type { AlertStatus } from "./lifecycle.js";

/** An alert's tag: the same `{ name, color? }` shape as a case's, so promotion copies it as is. */
export type AlertTag = CaseTag;

/**
 * An alert: something a detection source reported, waiting for triage. `(source, sourceRef)`
 * identifies it at the source, so a second report of the same thing updates this record
 * (`occurrences`, `lastSeenAt`) instead of making another one.
 */
export interface Alert {
  id: string;
  organizationId: string;
  title: string;
  description: string | null;
  severity: number;
  tlp: number;
  pap: number;
  typeValue: string | null;
  source: string;
  sourceRef: string | null;
  statusValue: AlertStatus;
  assigneeId: string | null;
  tags: AlertTag[];
  customFields: Record<string, unknown>;
  /** When the reported event happened (the source's time), not when the alert arrived. */
  eventDate: string | null;
  /** How many reports of (source, sourceRef) this alert stands for; 1 on creation. */
  occurrences: number;
  /** When the source last reported it. */
  lastSeenAt: string;
  /** The case it was promoted to or merged into (status `imported`). */
  caseId: string | null;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  /** Set once soft-deleted; only restore and an admin's includeDeleted list see such a record. */
  deletedAt: string | null;
  deletedBy: string | null;
}

/** What an alert list may filter on: a case list's filters, and these. */
export interface AlertFilter extends RecordListFilter<AlertStatus> {
  /** Case-insensitive substring of the title (at most 200 characters, matched literally). */
  q?: string;
  /** Soft-deleted alerts too (an admin's view); live ones only when absent or false. */
  includeDeleted?: boolean;
}

/** The alerts-by-source metric's filter: live alerts of the organization only, always. */
export interface AlertSourceCountFilter {
  maxTlp: number;
  statusValue?: AlertStatus[];
  /** createdAt ≥ from. */
  from?: string;
  /** createdAt < to. */
  to?: string;
}

export interface AlertSourceCount {
  source: string;
  count: number;
}
