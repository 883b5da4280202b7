/**
 * Observable rows ↔ records, for both dialects (the conventions of adapters/shared/rows.ts).
 * SQLite stores the booleans as 0/1 and PostgreSQL as booleans; reading accepts either.
 */
import type { Observable, ObservableTag } from "../../core/observables/types.js";
import type { RowMode } from "./rows.js";
import type { JsonValue, TimestampValue } from "./values.js";
import { fromJson, orNull, toIsoTimestamp, toIsoTimestampOrNull, toJson } from "./values.js";

type Ts<M extends RowMode> = M extends "write" ? string : TimestampValue;
type Js<M extends RowMode, T> = M extends "write" ? string : JsonValue<T>;
type Opt<M extends RowMode, T> = M extends "write" ? T | null : T | null | undefined;
/** SQLite hands back 0/1; the write mappers give 0/1, which both drivers bind. */
type Flag<M extends RowMode> = M extends "write" ? number : boolean | number;
type Complete<Missing extends never> = Missing;

export interface ObservableRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  case_id: Opt<M, string>;
  alert_id: Opt<M, string>;
  data_type: string;
  data: string;
  tlp: number;
  pap: number;
  ioc: Flag<M>;
  sighted: Flag<M>;
  tags: Js<M, ObservableTag[]>;
  message: Opt<M, string>;
  created_at: Ts<M>;
  updated_at: Ts<M>;
  created_by: Opt<M, string>;
  deleted_at: Opt<M, Ts<M>>;
  deleted_by: Opt<M, string>;
}

export const observableColumns = [
  "id",
  "organization_id",
  "case_id",
  "alert_id",
  "data_type",
  "data",
  "tlp",
  "pap",
  "ioc",
  "sighted",
  "tags",
  "message",
  "created_at",
  "updated_at",
  "created_by",
  "deleted_at",
  "deleted_by",
] as const satisfies readonly (keyof ObservableRow)[];
type _ObservableColumnsComplete = Complete<Exclude<keyof ObservableRow, (typeof observableColumns)[number]>>;

/** The columns an update may change; the rest (parent, value, creation) are fixed at insert. */
export const observableMutableColumns = ["tlp", "pap", "ioc", "sighted", "tags", "message", "updated_at", "deleted_at", "deleted_by"] as const satisfies readonly (keyof ObservableRow)[];

export function observableToRow(record: Observable): ObservableRow<"write"> {
  return {
    id: record.id,
    organization_id: record.organizationId,
    case_id: orNull(record.caseId),
    alert_id: orNull(record.alertId),
    data_type: record.dataType,
    data: record.data,
    tlp: record.tlp,
    pap: record.pap,
    ioc: record.ioc ? 1 : 0,
    sighted: record.sighted ? 1 : 0,
    tags: toJson(record.tags),
    message: orNull(record.message),
    created_at: toIsoTimestamp(record.createdAt),
    updated_at: toIsoTimestamp(record.updatedAt),
    created_by: orNull(record.createdBy),
    deleted_at: toIsoTimestampOrNull(record.deletedAt),
    deleted_by: orNull(record.deletedBy),
  };
}

export function observableFromRow(row: ObservableRow): Observable {
  return {
    id: row.id,
    organizationId: row.organization_id,
    caseId: orNull(row.case_id),
    alertId: orNull(row.alert_id),
    dataType: row.data_type,
    data: row.data,
    tlp: row.tlp,
    pap: row.pap,
    ioc: row.ioc === true || row.ioc === 1,
    sighted: row.sighted === true || row.sighted === 1,
    tags: fromJson(row.tags),
    message: orNull(row.message),
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at),
    createdBy: orNull(row.created_by),
    deletedAt: toIsoTimestampOrNull(row.deleted_at),
    deletedBy: orNull(row.deleted_by),
  };
}
