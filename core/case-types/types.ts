/** A kind of case an organization works: what `typeValue` names once the organization defines any. */
export interface CaseType {
  id: string;
  organizationId: string;
  /** Immutable: the case's `typeValue`. */
  key: string;
  label: string;
  description: string | null;
  /** Applied at create when the body omits them; null keeps the API's own defaults. */
  defaultTlp: number | null;
  defaultPap: number | null;
  /** Applied at create when the body omits severity; null: the body must give it (the API has no default severity). */
  defaultSeverity: number | null;
  /** Keys of the case custom fields that apply to cases of this type; empty: every case field. */
  customFields: string[];
  /**
   * The key of the named case lifecycle its cases follow (core/lifecycles/case-lifecycle.ts); null:
   * the organization's default case lifecycle.
   */
  lifecycle: string | null;
  /** Archived types take no new cases; their cases keep them. */
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
}

export interface CaseTypeFilter {
  key?: string;
}
