/**
 * How a group event stores its records: by column, not record by record. A bulk operation's
 * records share their keys and most of their values (the organization, the fields the operation
 * set, its time), so each key is written once and each value once when every record has it, and
 * only what differs is listed per record. A selectAll over 100 000 records then stores and reads
 * a row several times smaller, which is most of what a bulk's event costs to write and to read.
 *
 * Decoding gives back exactly the items encoded: the same records with their keys in the same
 * order, so what a webhook subscriber receives is byte for byte what the plain form gave. Items
 * that a column cannot hold exactly (records with different keys, an undefined value) are stored
 * in the plain form, and rows written before this form existed are plain arrays: both decode.
 */
import type { EventItem } from "../events/types.js";

/** One column: the value every item has, or each item's own, in item order. */
export type ItemColumn = { same: unknown } | { each: unknown[] };

export interface CompactEventItems {
  /** Marks the form (the plain form is an array). */
  compact: 1;
  count: number;
  /** Each item's resourceId; null when every item's is its payload's `id`. */
  resourceIds: string[] | null;
  tlp: ItemColumn;
  /** The payloads' keys, in their order. */
  keys: string[];
  /** One column per key. */
  columns: ItemColumn[];
}

/** A group event's items as stored: by column, or (older rows, irregular records) one by one. */
export type StoredEventItems = CompactEventItems | EventItem[];

const sharable = (value: unknown): boolean => value === null || typeof value !== "object";

/** Every item's value of one key, in item order, as a column (the array itself when they differ). */
function columnOf(each: unknown[]): ItemColumn {
  const first = each[0];
  if (sharable(first)) {
    let index = 1;
    while (index < each.length && each[index] === first) index++;
    if (index === each.length) return { same: first };
  }
  return { each };
}

const valueAt = (column: ItemColumn, index: number): unknown => ("same" in column ? column.same : column.each[index]);

/**
 * The items by column. `keyOrder` puts the keys in the order the database hands a stored object's
 * keys back (PostgreSQL's jsonb reorders them), so a decoded payload matches a stored one.
 *
 * One pass over the records: each payload's keys are walked with `for…in` and checked against the
 * first record's as they come, and each value goes straight into its column. (A key list per
 * record and a second read of every value by name cost about 1 µs a record, a tenth of a
 * 100 000-record bulk's own work on the event loop.) `for…in` also walks inherited enumerable keys,
 * which `Object.keys` leaves out: a record with one has a key the first record's list lacks, and
 * the items keep the plain form, which is always exact.
 */
export function compactEventItems(items: readonly EventItem[], keyOrder?: (keys: string[]) => string[]): StoredEventItems {
  const plain = (): EventItem[] => [...items];
  const [first] = items;
  if (first === undefined) return plain();
  const firstKeys = Object.keys(first.payload);
  // Keys JSON cannot carry as an own property of a plain object once assigned: keep the plain form.
  if (firstKeys.includes("__proto__")) return plain();
  const count = items.length;
  const width = firstKeys.length;
  const values = firstKeys.map(() => new Array<unknown>(count));
  let idsArePayloadIds = true;
  for (let index = 0; index < count; index++) {
    const { payload, resourceId } = items[index]!;
    let k = 0;
    for (const key in payload) {
      // A key more, fewer or in another order than the first record's, or an undefined value: plain.
      if (k === width || key !== firstKeys[k]) return plain();
      const value = payload[key];
      if (value === undefined) return plain();
      values[k]![index] = value;
      k++;
    }
    if (k !== width) return plain();
    if (payload.id !== resourceId) idsArePayloadIds = false;
  }
  const keys = keyOrder ? keyOrder(firstKeys) : firstKeys;
  const position = new Map(firstKeys.map((key, k) => [key, k]));
  const columns: ItemColumn[] = [];
  for (const key of keys) {
    const k = position.get(key);
    if (k === undefined) return plain();
    columns.push(columnOf(values[k]!));
  }
  return {
    compact: 1,
    count,
    resourceIds: idsArePayloadIds ? null : items.map((item) => item.resourceId),
    tlp: columnOf(items.map((item) => item.tlp)),
    keys,
    columns,
  };
}

/** The items a stored group holds, in order. */
export function eventItemsOf(stored: StoredEventItems): EventItem[] {
  if (Array.isArray(stored)) return stored;
  const { count, keys, columns, resourceIds, tlp } = stored;
  const items = new Array<EventItem>(count);
  for (let index = 0; index < count; index++) {
    const payload: Record<string, unknown> = {};
    for (let k = 0; k < keys.length; k++) payload[keys[k]!] = valueAt(columns[k]!, index);
    items[index] = { resourceId: resourceIds ? resourceIds[index]! : (payload.id as string), tlp: valueAt(tlp, index) as number | null, payload };
  }
  return items;
}
