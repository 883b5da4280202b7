/**
 * Rows ↔ records, for both dialects. A row is keyed by the snake_case column names that both
 * schemas share (adapters/sqlite/schema.ts, adapters/postgres/schema.ts). Reading accepts what
 * either driver returns (ISO text or `Date`, JSON text or parsed JSON, `undefined` for a missing
 * optional value) and always yields the core's plain record: ISO strings, parsed JSON, `null` for
 * absent values. Writing yields values every driver binds as-is: canonical ISO text and JSON text.
 */
import type { AuditEntry } from "../../core/audit/types.js";
import type { CaseStatus } from "../../core/cases/lifecycle.js";
import type { Case, CaseTag } from "../../core/cases/types.js";
import type { TlpAction, TlpAuditEntry, TlpOutcome, TlpResourceType } from "../../core/tlp/types.js";
import type { JsonValue, TimestampValue } from "./values.js";
import { fromJson, fromJsonOrNull, orNull, toIsoTimestamp, toIsoTimestampOrNull, toJson, toJsonOrNull } from "./values.js";

/** "read": what a driver returns; "write": what the mappers produce for binding. */
export type RowMode = "read" | "write";
type Ts<M extends RowMode> = M extends "write" ? string : TimestampValue;
type Js<M extends RowMode, T> = M extends "write" ? string : JsonValue<T>;
/** Optional columns: a driver may leave them out; the write mappers always give `null`. */
type Opt<M extends RowMode, T> = M extends "write" ? T | null : T | null | undefined;

/** Compile-time check that a column list names every key of its row. */
type Complete<Missing extends never> = Missing;

// ---------------------------------------------------------------------------------------------
// cases

export interface CaseRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  number: number;
  title: string;
  severity: number;
  description: Opt<M, string>;
  tlp: number;
  pap: number;
  status_value: string;
  type_value: Opt<M, string>;
  assignee_id: Opt<M, string>;
  client_id: Opt<M, string>;
  source: Opt<M, string>;
  source_ref: Opt<M, string>;
  tags: Js<M, CaseTag[]>;
  teams: Js<M, { id: string }[]>;
  organizations: Js<M, string[]>;
  custom_fields: Js<M, Record<string, unknown>>;
  closed_at: Opt<M, Ts<M>>;
  created_at: Ts<M>;
  updated_at: Ts<M>;
  created_by: Opt<M, string>;
}

export const caseColumns = [
  "id",
  "organization_id",
  "number",
  "title",
  "severity",
  "description",
  "tlp",
  "pap",
  "status_value",
  "type_value",
  "assignee_id",
  "client_id",
  "source",
  "source_ref",
  "tags",
  "teams",
  "organizations",
  "custom_fields",
  "closed_at",
  "created_at",
  "updated_at",
  "created_by",
] as const satisfies readonly (keyof CaseRow)[];
type _CaseColumnsComplete = Complete<Exclude<keyof CaseRow, (typeof caseColumns)[number]>>;

export function caseToRow(record: Case): CaseRow<"write"> {
  return {
    id: record.id,
    organization_id: record.organizationId,
    number: record.number,
    title: record.title,
    severity: record.severity,
    description: orNull(record.description),
    tlp: record.tlp,
    pap: record.pap,
    status_value: record.statusValue,
    type_value: orNull(record.typeValue),
    assignee_id: orNull(record.assigneeId),
    client_id: orNull(record.clientId),
    source: orNull(record.source),
    source_ref: orNull(record.sourceRef),
    tags: toJson(record.tags),
    teams: toJson(record.teams),
    organizations: toJson(record.organizations),
    custom_fields: toJson(record.customFields),
    closed_at: toIsoTimestampOrNull(record.closedAt),
    created_at: toIsoTimestamp(record.createdAt),
    updated_at: toIsoTimestamp(record.updatedAt),
    created_by: orNull(record.createdBy),
  };
}

export function caseFromRow(row: CaseRow): Case {
  return {
    id: row.id,
    organizationId: row.organization_id,
    number: row.number,
    title: row.title,
    severity: row.severity,
    description: orNull(row.description),
    tlp: row.tlp,
    pap: row.pap,
    statusValue: row.status_value as CaseStatus,
    typeValue: orNull(row.type_value),
    assigneeId: orNull(row.assignee_id),
    clientId: orNull(row.client_id),
    source: orNull(row.source),
    sourceRef: orNull(row.source_ref),
    tags: fromJson(row.tags),
    teams: fromJson(row.teams),
    organizations: fromJson(row.organizations),
    customFields: fromJson(row.custom_fields),
    closedAt: toIsoTimestampOrNull(row.closed_at),
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at),
    createdBy: orNull(row.created_by),
  };
}

// ---------------------------------------------------------------------------------------------
// audit_log

export interface AuditEntryRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  actor_user_id: Opt<M, string>;
  actor_key_id: Opt<M, string>;
  action: string;
  resource_type: string;
  resource_id: string;
  changes: Opt<M, Js<M, Record<string, { from: unknown; to: unknown }>>>;
  request_id: Opt<M, string>;
  ip: Opt<M, string>;
  user_agent: Opt<M, string>;
  at: Ts<M>;
  bulk_request_id: Opt<M, string>;
}

export const auditEntryColumns = [
  "id",
  "organization_id",
  "actor_user_id",
  "actor_key_id",
  "action",
  "resource_type",
  "resource_id",
  "changes",
  "request_id",
  "ip",
  "user_agent",
  "at",
  "bulk_request_id",
] as const satisfies readonly (keyof AuditEntryRow)[];
type _AuditEntryColumnsComplete = Complete<Exclude<keyof AuditEntryRow, (typeof auditEntryColumns)[number]>>;

export function auditEntryToRow(entry: AuditEntry): AuditEntryRow<"write"> {
  return {
    id: entry.id,
    organization_id: entry.organizationId,
    actor_user_id: orNull(entry.actorUserId),
    actor_key_id: orNull(entry.actorKeyId),
    action: entry.action,
    resource_type: entry.resourceType,
    resource_id: entry.resourceId,
    changes: toJsonOrNull(entry.changes),
    request_id: orNull(entry.requestId),
    ip: orNull(entry.ip),
    user_agent: orNull(entry.userAgent),
    at: toIsoTimestamp(entry.at),
    bulk_request_id: orNull(entry.bulkRequestId),
  };
}

export function auditEntryFromRow(row: AuditEntryRow): AuditEntry {
  return {
    id: row.id,
    organizationId: row.organization_id,
    actorUserId: orNull(row.actor_user_id),
    actorKeyId: orNull(row.actor_key_id),
    action: row.action,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    changes: fromJsonOrNull(row.changes),
    requestId: orNull(row.request_id),
    ip: orNull(row.ip),
    userAgent: orNull(row.user_agent),
    at: toIsoTimestamp(row.at),
    bulkRequestId: orNull(row.bulk_request_id),
  };
}

// ---------------------------------------------------------------------------------------------
// tlp_audit_log (append-only, hash-chained per organization)

export interface TlpAuditEntryRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  seq: number;
  actor_user_id: Opt<M, string>;
  actor_key_id: Opt<M, string>;
  resource_type: string;
  resource_id: string;
  action: string;
  tlp_before: Opt<M, number>;
  tlp_after: Opt<M, number>;
  outcome: string;
  ip: Opt<M, string>;
  user_agent: Opt<M, string>;
  request_id: Opt<M, string>;
  at: Ts<M>;
  prev_hash: string;
  hash: string;
}

export const tlpAuditEntryColumns = [
  "id",
  "organization_id",
  "seq",
  "actor_user_id",
  "actor_key_id",
  "resource_type",
  "resource_id",
  "action",
  "tlp_before",
  "tlp_after",
  "outcome",
  "ip",
  "user_agent",
  "request_id",
  "at",
  "prev_hash",
  "hash",
] as const satisfies readonly (keyof TlpAuditEntryRow)[];
type _TlpAuditEntryColumnsComplete = Complete<Exclude<keyof TlpAuditEntryRow, (typeof tlpAuditEntryColumns)[number]>>;

/**
 * The hash covers `at` as text: the core hashes canonical ISO text (`toISOString()`), which is
 * what is stored and read back, so the chain verifies. An entry hashed over another form of the
 * instant would be stored canonical and then fail verification.
 */
export function tlpAuditEntryToRow(entry: TlpAuditEntry): TlpAuditEntryRow<"write"> {
  return {
    id: entry.id,
    organization_id: entry.organizationId,
    seq: entry.seq,
    actor_user_id: orNull(entry.actorUserId),
    actor_key_id: orNull(entry.actorKeyId),
    resource_type: entry.resourceType,
    resource_id: entry.resourceId,
    action: entry.action,
    tlp_before: orNull(entry.tlpBefore),
    tlp_after: orNull(entry.tlpAfter),
    outcome: entry.outcome,
    ip: orNull(entry.ip),
    user_agent: orNull(entry.userAgent),
    request_id: orNull(entry.requestId),
    at: toIsoTimestamp(entry.at),
    prev_hash: entry.prevHash,
    hash: entry.hash,
  };
}

export function tlpAuditEntryFromRow(row: TlpAuditEntryRow): TlpAuditEntry {
  return {
    id: row.id,
    organizationId: row.organization_id,
    seq: row.seq,
    actorUserId: orNull(row.actor_user_id),
    actorKeyId: orNull(row.actor_key_id),
    resourceType: row.resource_type as TlpResourceType,
    resourceId: row.resource_id,
    action: row.action as TlpAction,
    tlpBefore: orNull(row.tlp_before),
    tlpAfter: orNull(row.tlp_after),
    outcome: row.outcome as TlpOutcome,
    ip: orNull(row.ip),
    userAgent: orNull(row.user_agent),
    requestId: orNull(row.request_id),
    at: toIsoTimestamp(row.at),
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

