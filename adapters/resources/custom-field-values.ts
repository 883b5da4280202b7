/**
 * The values of records' custom fields, one row per value (a multi_enum value is one row per
 * option), so a list can filter on `cf.<key>=<value>` through an index instead of reading JSON
 * row by row. Rows are written by the record's own repository in the same statement sequence as
 * the record (cases, alerts, tasks and observables: insert and every update), so every write path
 * keeps them current.
 *
 * `lookup` is `<organization>|<entity>|<key>|<value>`: one text an index orders and a filter binds
 * as one parameter (a declared `condition` binds its value to every mark).
 */
import { enumOf, id, text } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues } from "../declare/resource.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { defineResource } from "../declare/resource.js";

export const indexedEntities = ["case", "alert", "task", "observable"] as const;
export type IndexedEntity = (typeof indexedEntities)[number];

export interface CustomFieldValueRow {
  id: string;
  organizationId: string;
  entity: IndexedEntity;
  recordId: string;
  lookup: string;
}

export const customFieldValueResource = defineResource({
  table: "custom_field_values",
  noun: "A custom field value",
  columns: {
    id: id({ unsorted: true }),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    entity: enumOf(indexedEntities),
    // Matched against the records' ids (sorted, byte by byte): the same comparison, so the index serves it.
    recordId: text({ bytewise: true }),
    lookup: text(),
  },
  indexes: [
    { name: "custom_field_values_lookup_idx", columns: ["lookup", "recordId"] },
    { name: "custom_field_values_record_idx", columns: ["organizationId", "recordId"] },
  ],
  filters: {
    recordId: { kind: "equals", column: "recordId" },
    recordIds: { kind: "anyOf", column: "recordId" },
  },
});

/** Longest value text indexed; longer values (free text) are not filterable. */
const maxIndexedLength = 200;

/** The lookup text of one value, as the list filter composes it from `cf.<key>=<value>`. */
export function lookupOf(organizationId: string, entity: IndexedEntity, key: string, value: string): string {
  return `${organizationId}|${entity}|${key}|${value}`;
}

/** The scalar texts of a value: a string, number or boolean as written in a query; each element of an array of them. */
function textsOf(value: unknown): string[] {
  const one = (v: unknown): string | null =>
    typeof v === "string" ? (v.length <= maxIndexedLength ? v : null) : typeof v === "number" && Number.isFinite(v) ? String(v) : typeof v === "boolean" ? String(v) : null;
  if (Array.isArray(value)) return value.slice(0, 100).map(one).filter((t): t is string => t !== null);
  const text = one(value);
  return text === null ? [] : [text];
}

type ValueRepository = DeclaredRepository<CustomFieldValueRow, FilterValues<typeof customFieldValueResource>>;

type Indexed = { id: string; organizationId: string; customFields: Record<string, unknown> };

/** The rows of one record's current values. */
function rowsOf(entity: IndexedEntity, record: Indexed): CustomFieldValueRow[] {
  const rows: CustomFieldValueRow[] = [];
  for (const [key, value] of Object.entries(record.customFields)) {
    for (const text of new Set(textsOf(value))) {
      rows.push({ id: `${record.id}.${rows.length}`, organizationId: record.organizationId, entity, recordId: record.id, lookup: lookupOf(record.organizationId, entity, key, text) });
    }
  }
  return rows;
}

/** Replaces a record's rows with those of its current values. */
export async function indexCustomFieldValues(values: ValueRepository, entity: IndexedEntity, record: Indexed, fresh: boolean): Promise<void> {
  await indexCustomFieldValuesOfMany(values, entity, [record], fresh);
}

/** Most ids one delete names: a bulk page is at most 1 000 records. */
const idsPerDelete = 500;

/**
 * indexCustomFieldValues for many records of one organization (a bulk page, a status remap): one
 * delete per 500 records and one insert for all their rows, not a pair of statements per record.
 */
export async function indexCustomFieldValuesOfMany(values: ValueRepository, entity: IndexedEntity, records: readonly Indexed[], fresh: boolean): Promise<void> {
  if (records.length === 0) return;
  const organizationId = records[0]!.organizationId;
  if (records.some((r) => r.organizationId !== organizationId)) throw new Error("casekit: custom field values are indexed one organization at a time");
  if (!fresh) {
    for (let at = 0; at < records.length; at += idsPerDelete) {
      await values.deleteWhere(organizationId, { recordIds: records.slice(at, at + idsPerDelete).map((r) => r.id) });
    }
  }
  const rows = records.flatMap((record) => rowsOf(entity, record));
  if (rows.length > 0) await values.insertMany(rows);
}

/**
 * The SQL of a list's `cf.` filters, in two forms. When the rarest value is one few records hold
 * (`held`): its holders are read from the value index, each kept only if it holds every other
 * value too (probed in the same index, so records matching one value but not the rest are never
 * read), and the records left are sought by id, in id order. When every value is one many hold
 * (`common`): the list walks its own index newest first and probes the value index per record,
 * stopping once the page is full. Each form alone is slow where the other is fast (SQLite cannot
 * order the first form's matches by the index; the second walks every record for a value nobody
 * holds), so the repository picks by a bounded count per value (customFieldFilters).
 */
// A scalar subquery, not EXISTS: PostgreSQL turns EXISTS into a semi-join, which it plans as a
// hash of every holder and a sort of the matches (158 ms p50 for a value 25 % of 100 000 cases
// hold); a scalar subquery stays a probe per record, as on SQLite.
const probe = (alias: string, recordId: string): string => `(SELECT 1 FROM custom_field_values ${alias} WHERE ${alias}.lookup = ? AND ${alias}.record_id = ${recordId} LIMIT 1) IS NOT NULL`;

// The ids of the records holding all of 1 to 3 values (the rarest first), as the dialect's
// idAmong takes them: SQLite `IN`, PostgreSQL `= ANY(ARRAY(…))`, which walks the list's id index
// through them in order (an IN there is a semi-join: the whole table merged or hashed against the
// holders, then sorted). The other values are probed in the covering (lookup, record_id) index.
export const customFieldHolders = (values: 1 | 2 | 3): string =>
  ["SELECT h.record_id FROM custom_field_values h WHERE h.lookup = ?", ...Array.from({ length: values - 1 }, (_, i) => probe(`o${i}`, "h.record_id"))].join(" AND ");

export const customFieldProbe = (table: string): string => probe("v", `${table}.id`);

/**
 * Matches at or above this count use the probing form, for a page of `limit` records. Seeking
 * costs one read per holder; probing costs about `limit × records / holders` reads, so the larger
 * the page, the more holders seeking stays the cheaper (a bulk's 1 000-row pages of a value 1 % of
 * 100 000 records hold: 1 000 seeks, against probing all 100 000).
 */
export const commonValueRows = (limit: number): number => Math.max(1000, 20 * limit);

/**
 * The filters a declaration adds for `cf.` matches: the held form for one, two or three values
 * (bound in order, the rarest first), and a probe per value for the common form. `textColumn` is
 * any text column of the table: a condition's values are encoded as its column's kind, and a
 * lookup is text.
 */
export function customFieldFilterSpecs<const K extends string>(table: string, textColumn: K) {
  const held = (values: 1 | 2 | 3) => ({ kind: "idAmong", column: textColumn, sql: customFieldHolders(values), each: true }) as const;
  const common = { kind: "condition", column: textColumn, sql: customFieldProbe(table) } as const;
  return { heldBy1: held(1), heldBy2: held(2), heldBy3: held(3), commonField0: common, commonField1: common, commonField2: common };
}

type CustomFieldFilterValues = { heldBy1?: readonly string[]; heldBy2?: readonly string[]; heldBy3?: readonly string[] } & Partial<Record<`commonField${0 | 1 | 2}`, string>>;

/**
 * A list's `cf.` matches as the declared filters take them: one bounded count per match, from the
 * covering value index, then the held form driven by the rarest value when any is rare, else a
 * probe per value.
 */
export async function customFieldFilters(
  dialect: Dialect,
  executor: Executor,
  organizationId: string,
  entity: IndexedEntity,
  matches: readonly { key: string; value: string }[] | undefined,
  limit: number,
): Promise<CustomFieldFilterValues> {
  if (matches === undefined || matches.length === 0) return {};
  if (matches.length > 3) throw new Error("casekit: at most three custom field filters");
  const common = commonValueRows(limit);
  const count = `SELECT count(*) AS n FROM (SELECT 1 FROM custom_field_values WHERE lookup = ${dialect.param(1)} LIMIT ${dialect.param(2)}) held`;
  const counted: { lookup: string; held: number }[] = [];
  for (const match of matches) {
    const lookup = lookupOf(organizationId, entity, match.key, match.value);
    const [row] = await executor.all(count, [lookup, common]);
    counted.push({ lookup, held: Number((row as { n: unknown } | undefined)?.n ?? 0) });
  }
  // The same value twice is one condition.
  const distinct = [...new Map(counted.map((c) => [c.lookup, c])).values()].sort((a, b) => a.held - b.held);
  if (distinct[0]!.held < common) {
    const lookups = distinct.map((c) => c.lookup);
    return { [`heldBy${lookups.length as 1 | 2 | 3}`]: lookups };
  }
  return Object.fromEntries(distinct.map((c, index) => [`commonField${index}`, c.lookup]));
}

export type { ValueRepository };
