/**
 * Rows ↔ records, derived from a declaration: record fields in camelCase, columns in snake_case,
 * the same conventions for both dialects. Timestamps leave and come back as ISO 8601 UTC text
 * with milliseconds (PostgreSQL hands back a Date), JSON as text (jsonb comes back parsed),
 * booleans as 1 / 0 (SQLite has no boolean; PostgreSQL's boolean takes '1' and '0'), 64-bit
 * integers as numbers (pg hands them back as text), and a missing value is always null.
 */
import type { Column } from "./columns.js";
import type { Field, Resource } from "./resource.js";
import { fromJson, toIsoTimestamp } from "../shared/values.js";

export function encodeValue(column: Column, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case "timestamp":
      return toIsoTimestamp(value as string);
    case "json":
      return JSON.stringify(value);
    case "bool":
      return value ? 1 : 0;
    default:
      return value;
  }
}

export function decodeValue(column: Column, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case "timestamp":
      return toIsoTimestamp(value as string | Date);
    case "json":
      // None of casekit's JSON columns holds a bare string, so text always means JSON text.
      return fromJson(value);
    case "bool":
      return Boolean(value);
    case "int":
    case "float":
      return typeof value === "number" ? value : Number(value);
    default:
      return value;
  }
}

/**
 * A value as a recordset row holds it (dialect.ts): JSON and booleans stay as they are, since the
 * whole row travels as JSON; everything else as `encodeValue` gives it.
 */
export function recordsetValue(column: Column, value: unknown): unknown {
  if (value === undefined) return null;
  return column.kind === "json" || column.kind === "bool" ? value : encodeValue(column, value);
}

/** One recordset row: `fields` of a record keyed by column name. */
export function recordsetRow(fields: readonly Field[], record: object): Record<string, unknown> {
  const source = record as Record<string, unknown>;
  return Object.fromEntries(fields.map((field) => [field.name, recordsetValue(field.column, source[field.key])]));
}

/** The values of `fields` of a record, in that order: the parameters of a statement. */
export function paramsOf(fields: readonly Field[], record: object): unknown[] {
  const source = record as Record<string, unknown>;
  return fields.map((field) => encodeValue(field.column, source[field.key]));
}

/** A record as a row keyed by column name, values as statements bind them (for raw SQL: tools, migrations' tests). */
export function rowOf(resource: Resource, record: object): Record<string, unknown> {
  const params = paramsOf(resource.fields, record);
  return Object.fromEntries(resource.fields.map((field, i) => [field.name, params[i]]));
}

type RowReader = (row: Record<string, unknown>) => Record<string, unknown>;

/** Each resource's row readers (one per column prefix), built once: a page of rows then costs one call per row. */
const readers = new WeakMap<Resource, Map<string, RowReader>>();
const passThrough = new Set(["id", "text", "enum"]);

function readerOf(resource: Resource, prefix: string): RowReader {
  let byPrefix = readers.get(resource);
  if (byPrefix === undefined) readers.set(resource, (byPrefix = new Map()));
  let reader = byPrefix.get(prefix);
  if (reader === undefined) byPrefix.set(prefix, (reader = buildReader(resource, prefix)));
  return reader;
}

/**
 * The reader is generated from the declaration, so that each field is read and written by its own
 * name as a hand-written mapper does: a loop over the fields by computed names cost a page of
 * alerts several times as much (V8's generic keyed loads and stores). Where the runtime refuses
 * code built at run time (--disallow-code-generation-from-strings), the loop.
 */
function buildReader({ fields }: Resource, prefix: string): RowReader {
  const decoders = fields.map(({ column }) => (passThrough.has(column.kind) ? undefined : (value: unknown) => decodeValue(column, value)));
  const read = (value: unknown, i: number): unknown => {
    if (value === null || value === undefined) return null;
    const decode = decoders[i];
    return decode === undefined ? value : decode(value);
  };
  const body = `return { ${fields.map(({ key, name }, i) => `${JSON.stringify(key)}: read(row[${JSON.stringify(prefix + name)}], ${i})`).join(", ")} };`;
  try {
    const generated = new Function("row", "read", body) as (row: Record<string, unknown>, reader: typeof read) => Record<string, unknown>;
    return (row) => generated(row, read);
  } catch {
    return (row) => {
      const record: Record<string, unknown> = {};
      fields.forEach(({ key, name }, i) => (record[key] = read(row[prefix + name], i)));
      return record;
    };
  }
}

/**
 * A row keyed by column name as the resource's record. `prefix` reads a joined resource's record
 * from the same row, its columns selected as `<prefix><name>` (their names clash with the row's own).
 */
export function recordOf<T>(resource: Resource, row: Record<string, unknown>, prefix = ""): T {
  return readerOf(resource, prefix)(row) as T;
}
