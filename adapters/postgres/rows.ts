/**
 * The bridge between drizzle's tables (properties in camelCase) and the shared row mappers
 * (adapters/shared/rows.ts, rows keyed by the snake_case column names both dialects share).
 */
import { getTableColumns } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { AuditEntryRow, CaseRow, TlpAuditEntryRow } from "../shared/rows.js";
import type { auditLog, cases, tlpAuditLog } from "./schema.js";

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
 */
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
export const _columnsMatchSharedRows: [
  Same<ColumnNames<typeof cases>, keyof CaseRow>,
  Same<ColumnNames<typeof auditLog>, keyof AuditEntryRow>,
  Same<ColumnNames<typeof tlpAuditLog>, keyof TlpAuditEntryRow>,
] = [true, true, true];
