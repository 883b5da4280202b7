/**
 * Records of any declared resource, generated from its column kinds: what the declared-resource
 * checks (declared-suite.ts) store, read back and filter. Values come from small pools, so that
 * equal values (the ones filters and unique keys are about) are common.
 */
import fc from "fast-check";
import { ManualClock } from "../../core/ports/clock.js";
import { createIdGenerator } from "../../core/ports/ids.js";
import type { Column } from "../../adapters/declare/columns.js";
import type { Field, Resource } from "../../adapters/declare/resource.js";

export type Row = Record<string, unknown>;

/** The two tenants every tenant-scoped check stores records for; the checks read as the first. */
export const tenants = ["org_01jtenant0aaaaaaaaaaaaaaaa", "org_01jtenant0bbbbbbbbbbbbbbbb"] as const;

/** Ids as the core makes them (core/ports/ids.ts), strictly increasing from `start`. */
export function idsFrom(resource: Resource, start: string): () => string {
  const prefix = resource.table.replace(/[^a-z]/g, "").slice(0, 4);
  const ids = createIdGenerator(new ManualClock(start), () => new Uint8Array(10));
  return () => ids.next(prefix);
}

/** Dataset ids start here; ids made during a check (`later`) sort after every one of them. */
const datasetStart = "2026-01-01T00:00:00.000Z";
export const later = (resource: Resource): (() => string) => idsFrom(resource, "2026-06-01T00:00:00.000Z");

/**
 * Text: ASCII of both cases, LIKE's own characters and its escape (a contains filter must match
 * them literally), quotes, and letters without case (SQLite's LIKE folds ASCII only). No NUL and
 * no lone surrogate: PostgreSQL's text and jsonb refuse them.
 */
const words = ["alpha", "Alpha", "BETA", "gamma delta", "50%_off", "a\\b", "it's", "日本語", "🔥fire", "x"];
/** Names stored in JSON tag arrays, and one never stored. */
export const tagNames = ["red", "green", "Blue", "tlp:amber", "a b"];
const timestamps = ["2025-12-31T23:59:59.999Z", "2026-01-01T00:00:00.000Z", "2026-03-01T12:00:00.500Z"];

const timestampArbitrary = fc.oneof(
  fc.constantFrom(...timestamps),
  fc.integer({ min: Date.parse("2020-01-01T00:00:00.000Z"), max: Date.parse("2030-01-01T00:00:00.000Z") }).map((ms) => new Date(ms).toISOString()),
);

/** Any JSON a column might hold, never a bare string or null at the top (rows.ts reads text as JSON text; null is SQL NULL). */
const jsonLeaf = fc.oneof(fc.constantFrom(...words), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null));
const jsonObject = fc.dictionary(fc.constantFrom("a", "b", "name", "value", "kind"), fc.oneof(jsonLeaf, fc.array(jsonLeaf, { maxLength: 3 })), { maxKeys: 3, noNullPrototype: true });
const anyJson = fc.oneof(fc.array(jsonLeaf, { maxLength: 4 }), jsonObject, fc.array(jsonObject, { maxLength: 3 }));

/** The JSON of a column some jsonTags filter reads: names, or objects naming themselves under `key`. */
function tagsArbitrary(key: string | undefined): fc.Arbitrary<unknown> {
  const name = fc.constantFrom(...tagNames);
  if (key === undefined) return fc.uniqueArray(name, { maxLength: 3 });
  return fc.uniqueArray(name, { maxLength: 3 }).map((names) => names.map((n, i) => ({ [key]: n, extra: i })));
}

/** Values of one column, by its kind (never null: `valueArbitrary` adds that). */
export function kindArbitrary(resource: Resource, field: Field): fc.Arbitrary<unknown> {
  const column: Column = field.column;
  switch (column.kind) {
    case "id":
    case "text":
      return fc.constantFrom(...words);
    case "enum":
      return fc.constantFrom(...(column.values ?? []));
    case "int":
      return column.big ? fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(2 ** 40 + 7)) : fc.integer({ min: -5, max: 5 });
    case "float":
      return fc.oneof(fc.constantFrom(0.5, 1, 2.25), fc.double({ min: -1e9, max: 1e9, noNaN: true }).filter((x) => !Object.is(x, -0)));
    case "bool":
      return fc.boolean();
    case "timestamp":
      return timestampArbitrary;
    case "json": {
      const tags = Object.values(resource.filters).find((f) => f.kind === "jsonTags" && f.column === field.key);
      return tags ? tagsArbitrary(tags.kind === "jsonTags" ? tags.key : undefined) : anyJson;
    }
  }
}

/** A column's value in a record: nullable columns are null about one time in four. */
export function valueArbitrary(resource: Resource, field: Field): fc.Arbitrary<unknown> {
  const value = kindArbitrary(resource, field);
  return field.column.nullable ? fc.option(value, { nil: null, freq: 3 }) : value;
}

/** One record without its id and tenant (the dataset gives them). */
export function contentArbitrary(resource: Resource): fc.Arbitrary<Row> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of resource.fields) {
    if (field === resource.id || field === resource.tenant) continue;
    parts[field.key] = valueArbitrary(resource, field);
  }
  return fc.record(parts);
}

/** A record of `tenant` with the content given (`null` tenant for a resource no tenant owns). */
export function recordWith(resource: Resource, id: string, tenant: string | null, content: Row): Row {
  const record: Row = {};
  for (const field of resource.fields) {
    if (field === resource.id) record[field.key] = id;
    else if (field === resource.tenant) record[field.key] = tenant;
    else record[field.key] = content[field.key];
  }
  return record;
}

/** Unique keys' values as one comparable string (nulls count as equal: stricter than SQL, never looser). */
const keyOf = (record: Row, columns: readonly string[]): string => JSON.stringify(columns.map((c) => record[c] ?? null));

/**
 * Whether `record` could clash with any of `others` on a declared unique key (partial keys as if
 * they had no condition): the datasets keep only records that cannot, so every insert writes.
 */
export function mayClash(resource: Resource, record: Row, others: Iterable<Row>): boolean {
  const keys = (resource.spec.unique ?? []).map((u) => u.columns);
  for (const other of others) {
    if (other[resource.id.key] === record[resource.id.key]) return true;
    if (keys.some((columns) => keyOf(other, columns) === keyOf(record, columns))) return true;
  }
  return false;
}

/**
 * A dataset: records of both tenants (or tenantless), some soft-deleted, with ids in insertion
 * order and no two clashing on any unique key.
 */
export function datasetArbitrary(resource: Resource, maxLength = 14): fc.Arbitrary<Row[]> {
  const owner = resource.tenant === undefined ? fc.constant(null) : fc.constantFrom<string | null>(...tenants);
  return fc.array(fc.tuple(owner, contentArbitrary(resource)), { maxLength }).map((drawn) => {
    const next = idsFrom(resource, datasetStart);
    const kept: Row[] = [];
    for (const [tenant, content] of drawn) {
      const record = recordWith(resource, next(), tenant, content);
      if (!mayClash(resource, record, kept)) kept.push(record);
    }
    return kept;
  });
}

/** Whether no read may return the record: its soft-delete column is set. */
export const isDeleted = (resource: Resource, record: Row): boolean => resource.softDelete !== undefined && record[resource.softDelete.key] !== null;

/** The records a read as `tenant` may return: its own (any, when no tenant owns the resource), live. */
export const visibleTo = (resource: Resource, tenant: string | null, records: readonly Row[]): Row[] =>
  records.filter((r) => (resource.tenant === undefined || r[resource.tenant.key] === tenant) && !isDeleted(resource, r));

/** Records in key order, as lists return them ascending. */
export const byId = (resource: Resource, records: readonly Row[]): Row[] =>
  [...records].sort((a, b) => (String(a[resource.id.key]) < String(b[resource.id.key]) ? -1 : 1));

/**
 * `record` with every column an update writes taken from `content` (another generated record),
 * except the soft-delete column and the columns of unique keys, so that the change clashes with
 * nothing and keeps the record as visible as it was.
 */
export function changed(resource: Resource, record: Row, content: Row): Row {
  const keyed = new Set((resource.spec.unique ?? []).flatMap((u) => u.columns));
  const result = { ...record };
  for (const field of resource.mutable) {
    if (field !== resource.softDelete && !keyed.has(field.key)) result[field.key] = content[field.key];
  }
  return result;
}

/** A column a patch may set on many records at once: mutable, in no unique key, not the soft-delete column. */
export function patchableField(resource: Resource): Field | undefined {
  const keyed = new Set((resource.spec.unique ?? []).flatMap((u) => u.columns));
  return resource.mutable.find((f) => f !== resource.softDelete && !keyed.has(f.key));
}
