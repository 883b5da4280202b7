import type { CaseStatus } from "./lifecycle.js";

export interface CaseTag {
  name: string;
  color?: string;
}

export interface Case {
  id: string;
  organizationId: string;
  number: number;
  title: string;
  severity: number;
  description: string | null;
  tlp: number;
  pap: number;
  statusValue: CaseStatus;
  typeValue: string | null;
  assigneeId: string | null;
  clientId: string | null;
  source: string | null;
  sourceRef: string | null;
  tags: CaseTag[];
  teams: { id: string }[];
  organizations: string[];
  customFields: Record<string, unknown>;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
}

/**
 * What a case or alert list may filter on (alerts' add their own); every member narrows the
 * result (AND), arrays mean "any of".
 */
export interface RecordListFilter<Status extends string> {
  /** Records above this TLP are left out (the caller's clearance). */
  maxTlp: number;
  statusValue?: Status[];
  severity?: number[];
  tlp?: number[];
  assigneeId?: string[];
  source?: string[];
  typeValue?: string[];
  tag?: string[];
  createdAfter?: string;
  createdBefore?: string;
  /** `cf.<key>=<value>` filters, all of which must hold (at most maxCustomFieldFilters). */
  customField?: CustomFieldMatch[];
}

/** One custom field value a list must match: a scalar as query text, or one option of a multi_enum. */
export interface CustomFieldMatch {
  key: string;
  value: string;
}

/** Most `cf.` filters one list takes. */
export const maxCustomFieldFilters = 3;

export type CaseFilter = RecordListFilter<CaseStatus>;
