import type { CaseTag, CustomFieldMatch } from "../cases/types.js";

/** An observable's tag: the same `{ name, color? }` shape as a case's. */
export type ObservableTag = CaseTag;

/**
 * An observable (an indicator: an address, a domain, a hash …) of one case or one alert: exactly
 * one of `caseId` and `alertId` is set. `data` is stored normalised (core/observables/data-types.ts),
 * so one value has one spelling and the per-parent dedupe and the cross-organization search by
 * value both compare exact text.
 */
export interface Observable {
  id: string;
  organizationId: string;
  caseId: string | null;
  alertId: string | null;
  dataType: string;
  data: string;
  tlp: number;
  pap: number;
  ioc: boolean;
  sighted: boolean;
  tags: ObservableTag[];
  message: string | null;
  /** Values of the organization's observable custom fields (free-form while it defines none). */
  customFields: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  /** Set once soft-deleted; repositories never hand back a deleted observable. */
  deletedAt: string | null;
  deletedBy: string | null;
}

/** The record an observable belongs to. */
export type ObservableParent = { kind: "case"; id: string } | { kind: "alert"; id: string };

/** What a list may filter on; every member narrows the result (AND), arrays mean "any of". */
export interface ObservableFilter {
  /** Records above this TLP, or whose parent is above it, are left out (the caller's clearance). */
  maxTlp: number;
  dataType?: string[];
  /** Exact stored values (the core passes every normalised spelling of what the caller asked for). */
  data?: string[];
  ioc?: boolean;
  sighted?: boolean;
  tag?: string[];
  caseId?: string[];
  alertId?: string[];
  tlp?: number[];
  createdAfter?: string;
  createdBefore?: string;
  /** `cf.<key>=<value>` filters, all of which must hold (at most maxCustomFieldFilters). */
  customField?: CustomFieldMatch[];
}
