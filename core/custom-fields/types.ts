/** Record kinds a custom field can apply to. */
export const customFieldScopes = ["case", "alert", "task", "observable"] as const;
export type CustomFieldScope = (typeof customFieldScopes)[number];

/** The value types; every value is stored as JSON in the record's `customFields`. */
export const customFieldTypes = ["string", "text", "integer", "number", "boolean", "date", "datetime", "url", "email", "enum", "multi_enum", "user"] as const;
export type CustomFieldType = (typeof customFieldTypes)[number];

/** A choice of an enum or multi_enum field: values store its `id`, so relabelling never breaks data. */
export interface CustomFieldOption {
  id: string;
  label: string;
  /** No new value may choose it; stored values keep it. */
  deprecated: boolean;
}

/** Limits a value must keep, where they make sense for the type. */
export interface CustomFieldBounds {
  /** integer, number: inclusive; multi_enum: fewest choices. */
  min?: number;
  /** integer, number: inclusive; multi_enum: most choices. */
  max?: number;
  /** string, text, url, email: characters. */
  minLength?: number;
  maxLength?: number;
  /** string: a regular expression the whole value must match. */
  pattern?: string;
}

export interface CustomFieldRequirement {
  /** The value must be given (or defaulted) when the record is created. */
  onCreate: boolean;
  /** The value must be set before the record reaches a final status of its lifecycle. */
  onClose: boolean;
  /**
   * Status keys of the record's lifecycle: the value must be set before the record enters any of
   * them ("required on named transitions"). Absent on fields stored before it existed: none.
   */
  onEnter?: string[];
}

export interface CustomFieldDefinition {
  id: string;
  organizationId: string;
  /** Immutable: the member name in `customFields`, and `cf.<key>` in list filters. */
  key: string;
  label: string;
  description: string | null;
  scopes: CustomFieldScope[];
  type: CustomFieldType;
  options: CustomFieldOption[];
  bounds: CustomFieldBounds;
  required: CustomFieldRequirement;
  /** Applied at create when the body omits the field; null for none. */
  defaultValue: unknown;
  /** Callers whose clearance is below it never see the value; null for no floor. */
  tlpFloor: number | null;
  /** Whether lists may filter on it (`cf.<key>=`). */
  filterable: boolean;
  /** Archived fields take no new values and are dropped from the schema; stored values stay. */
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
}

export interface CustomFieldFilter {
  scope?: CustomFieldScope;
  key?: string;
}
