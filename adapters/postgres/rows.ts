/**
 * The bridge between drizzle's tables (properties in camelCase) and the shared row mappers
 * (adapters/shared/rows.ts, rows keyed by the snake_case column names both dialects share).
 */
import { getTableColumns } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type {
  ApiKeyRow,
  AuditEntryRow,
  CaseRow,
  OrganizationRow,
  organizationCounterColumns,
  SessionRow,
  SignInThrottleRow,
  TlpAuditEntryRow,
  UserRow,
} from "../shared/rows.js";
import type { apiKeys, auditLog, cases, organizations, sessions, signInThrottles, tlpAuditLog, users } from "./schema.js";

/** A table's column SQL names. */
type ColumnNames<T extends PgTable> = { [K in keyof T["_"]["columns"]]: T["_"]["columns"][K]["_"]["name"] }[keyof T["_"]["columns"]];

/** A select list that returns a row keyed by column name: `{ organization_id: cases.organizationId, … }`. */
export function rowSelection<T extends PgTable>(table: T, omit: readonly string[] = []): Record<string, PgColumn> {
  const selection: Record<string, PgColumn> = {};
  for (const column of Object.values(getTableColumns(table))) {
    if (!omit.includes(column.name)) selection[column.name] = column;
  }
  return selection;
}

/** Insert or update values from a row keyed by column name; columns absent from the row are left out. */
export function rowValues<T extends PgTable>(table: T, row: object): T["$inferInsert"] {
  const source = row as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    if (column.name in source) values[key] = source[column.name];
  }
  return values as T["$inferInsert"];
}

/**
 * Compile-time proof that this schema's columns are exactly the shared rows' keys, so a column
 * renamed on one side fails the build instead of silently reading `undefined`.
 * (`organizations.case_seq`, `tlp_audit_seq` and `tlp_audit_hash` are the adapter's own counters
 * and no part of the record.)
 */
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
export const _columnsMatchSharedRows: [
  Same<Exclude<ColumnNames<typeof organizations>, (typeof organizationCounterColumns)[number]>, keyof OrganizationRow>,
  Same<ColumnNames<typeof users>, keyof UserRow>,
  Same<ColumnNames<typeof apiKeys>, keyof ApiKeyRow>,
  Same<ColumnNames<typeof cases>, keyof CaseRow>,
  Same<ColumnNames<typeof auditLog>, keyof AuditEntryRow>,
  Same<ColumnNames<typeof tlpAuditLog>, keyof TlpAuditEntryRow>,
  Same<ColumnNames<typeof sessions>, keyof SessionRow>,
  Same<ColumnNames<typeof signInThrottles>, keyof SignInThrottleRow>,
] = [true, true, true, true, true, true, true, true];
