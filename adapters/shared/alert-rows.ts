/**
 * Alert rows ↔ records, for both dialects (the conventions of adapters/shared/rows.ts).
 */
import type { AlertStatus } from "../../core/alerts/lifecycle.js";
import type { Alert, AlertFilter, AlertSourceCountFilter, AlertTag } from "../../core/alerts/types.js";
import { isoBound, normalizeListFilter } from "./case-filter.js";
import type { RowMode } from "./rows.js";
import type { JsonValue, TimestampValue } from "./values.js";
import { fromJson, orNull, toIsoTimestamp, toIsoTimestampOrNull, toJson } from "./values.js";

type Ts<M extends RowMode> = M extends "write" ? string : TimestampValue;
type Js<M extends RowMode, T> = M extends "write" ? string : JsonValue<T>;
type Opt<M extends RowMode, T> = M extends "write" ? T | null : T | null | undefined;
type Complete<Missing extends never> = Missing;

export interface AlertRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  title: string;
  description: Opt<M, string>;
  severity: number;
  tlp: number;
  pap: number;
  type_value: Opt<M, string>;
  source: string;
  source_ref: Opt<M, string>;
  status_value: string;
  assignee_id: Opt<M, string>;
  tags: Js<M, AlertTag[]>;
  custom_fields: Js<M, Record<string, unknown>>;
  event_date: Opt<M, Ts<M>>;
  occurrences: number;
  last_seen_at: Ts<M>;
  case_id: Opt<M, string>;
  created_at: Ts<M>;
  updated_at: Ts<M>;
  created_by: Opt<M, string>;
  deleted_at: Opt<M, Ts<M>>;
  deleted_by: Opt<M, string>;
}

export const alertColumns = [
  "id",
  "organization_id",
  "title",
  "description",
  "severity",
  "tlp",
  "pap",
  "type_value",
  "source",
  "source_ref",
  "status_value",
  "assignee_id",
  "tags",
  "custom_fields",
  "event_date",
  "occurrences",
  "last_seen_at",
  "case_id",
  "created_at",
  "updated_at",
  "created_by",
  "deleted_at",
  "deleted_by",
] as const satisfies readonly (keyof AlertRow)[];
type _AlertColumnsComplete = Complete<Exclude<keyof AlertRow, (typeof alertColumns)[number]>>;

/** What `update` writes: everything but identity and creation. */
export const alertMutableColumns = alertColumns.filter((c) => !["id", "organization_id", "created_at", "created_by"].includes(c));

export function alertToRow(record: Alert): AlertRow<"write"> {
  return {
    id: record.id,
    organization_id: record.organizationId,
    title: record.title,
    description: orNull(record.description),
    severity: record.severity,
    tlp: record.tlp,
    pap: record.pap,
    type_value: orNull(record.typeValue),
    source: record.source,
    source_ref: orNull(record.sourceRef),
    status_value: record.statusValue,
    assignee_id: orNull(record.assigneeId),
    tags: toJson(record.tags),
    custom_fields: toJson(record.customFields),
    event_date: toIsoTimestampOrNull(record.eventDate),
    occurrences: record.occurrences,
    last_seen_at: toIsoTimestamp(record.lastSeenAt),
    case_id: orNull(record.caseId),
    created_at: toIsoTimestamp(record.createdAt),
    updated_at: toIsoTimestamp(record.updatedAt),
    created_by: orNull(record.createdBy),
    deleted_at: toIsoTimestampOrNull(record.deletedAt),
    deleted_by: orNull(record.deletedBy),
  };
}

export function alertFromRow(row: AlertRow): Alert {
  return {
    id: row.id,
    organizationId: row.organization_id,
    title: row.title,
    description: orNull(row.description),
    severity: Number(row.severity),
    tlp: Number(row.tlp),
    pap: Number(row.pap),
    typeValue: orNull(row.type_value),
    source: row.source,
    sourceRef: orNull(row.source_ref),
    statusValue: row.status_value as AlertStatus,
    assigneeId: orNull(row.assignee_id),
    tags: fromJson(row.tags),
    customFields: fromJson(row.custom_fields),
    eventDate: toIsoTimestampOrNull(row.event_date),
    occurrences: Number(row.occurrences),
    lastSeenAt: toIsoTimestamp(row.last_seen_at),
    caseId: orNull(row.case_id),
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at),
    createdBy: orNull(row.created_by),
    deletedAt: toIsoTimestampOrNull(row.deleted_at),
    deletedBy: orNull(row.deleted_by),
  };
}

/**
 * An alert filter ready for SQL in either dialect, or `null` when nothing can match: the rules
 * of the case list (adapters/shared/case-filter.ts): an empty any-of list matches no record, time
 * bounds are compared in canonical ISO form, and an empty `q` matches everything.
 */
export function normalizeAlertFilter(filter: AlertFilter): AlertFilter | null {
  const normalized = normalizeListFilter(filter);
  if (normalized === null) return null;
  const { q, ...rest } = normalized;
  return q !== undefined && q !== "" ? normalized : rest;
}

/** The metric's filter with its bounds in canonical form, or null when nothing can match. */
export function normalizeAlertSourceCountFilter(filter: AlertSourceCountFilter): AlertSourceCountFilter | null {
  if (filter.statusValue !== undefined && filter.statusValue.length === 0) return null;
  return { ...filter, from: isoBound("from", filter.from), to: isoBound("to", filter.to) };
}
