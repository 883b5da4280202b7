/**
 * A group's items stored by column, for items of any JSON shape (a bulk's audit items: a record's
 * id and the fields that changed, each with `from` and `to`; a TLP group's items). Items that all
 * have the same shape (the same keys, in the same order, at every level of nested objects) are
 * stored as that shape once and one column per leaf: the value every item has there, written
 * once, or each item's own. Anything else is stored as the plain array.
 *
 * Decoding gives back what the plain array would have read back as: the same values, with every
 * object's keys in the order the database hands a stored object's keys back (`keyOrder`:
 * PostgreSQL's jsonb reorders them; SQLite keeps them as written).
 */
import type { ItemColumn } from "./compact-items.js";

/** A leaf (0), or an object: its keys in the order they decode, each with its own shape. */
export type RecordShape = 0 | { keys: string[]; of: RecordShape[] };

export interface CompactRecords {
  /** Marks the form (the plain form is an array; compact-items.ts's events are `compact: 1`). */
  compact: 2;
  count: number;
  shape: RecordShape;
  /** One column per leaf of the shape, depth first, in the shape's key order. */
  columns: ItemColumn[];
}

/** Items as stored: by column, or one by one. */
export type StoredRecords<T> = CompactRecords | T[];

type KeyOrder = (keys: string[]) => string[];

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * What `value` is to a shape: undefined where a column could not give the value back exactly (an
 * undefined member, which JSON leaves out; a function or symbol; a `toJSON`; a `__proto__` key),
 * 0 for a leaf (anything but a plain object with keys: arrays, scalars, null, `{}`), else the
 * object's keys as written. shapeOf and hasShape both go by it.
 */
function nodeOf(value: unknown): 0 | string[] | undefined {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
  if (!isObject(value)) return 0;
  if (typeof value.toJSON === "function") return undefined;
  const keys = Object.keys(value);
  if (keys.length === 0) return 0;
  return keys.includes("__proto__") ? undefined : keys;
}

/** The shape of `value` with its keys as written, or undefined where nodeOf says so anywhere in it. */
function shapeOf(value: unknown): RecordShape | undefined {
  const keys = nodeOf(value);
  if (keys === undefined || keys === 0) return keys;
  const of: RecordShape[] = [];
  for (const key of keys) {
    const child = shapeOf((value as Record<string, unknown>)[key]);
    if (child === undefined) return undefined;
    of.push(child);
  }
  return { keys, of };
}

/**
 * Whether shapeOf(value) would be `shape`, without building it: a bulk checks every one of its
 * 100 000 items against the first, and a shape object per item was garbage for the collector.
 */
function hasShape(value: unknown, shape: RecordShape): boolean {
  const keys = nodeOf(value);
  if (keys === undefined) return false;
  if (keys === 0 || shape === 0) return keys === shape;
  if (keys.length !== shape.keys.length) return false;
  for (let k = 0; k < keys.length; k++) {
    if (keys[k] !== shape.keys[k] || !hasShape((value as Record<string, unknown>)[keys[k]!], shape.of[k]!)) return false;
  }
  return true;
}

/** The shape with every object's keys in `keyOrder`'s order. */
function ordered(shape: RecordShape, keyOrder: KeyOrder | undefined): RecordShape {
  if (shape === 0 || !keyOrder) return shape;
  const keys = keyOrder(shape.keys);
  return { keys, of: keys.map((key) => ordered(shape.of[shape.keys.indexOf(key)]!, keyOrder)) };
}

/** Each leaf's path of keys, depth first. */
function leafPaths(shape: RecordShape, prefix: string[] = [], into: string[][] = []): string[][] {
  if (shape === 0) into.push(prefix);
  else shape.keys.forEach((key, k) => leafPaths(shape.of[k]!, [...prefix, key], into));
  return into;
}

function at(value: unknown, path: readonly string[]): unknown {
  let inner = value;
  for (let i = 0; i < path.length; i++) inner = (inner as Record<string, unknown>)[path[i]!];
  return inner;
}

const sharable = (value: unknown): boolean => value === null || typeof value !== "object";

function columnOf(items: readonly unknown[], path: readonly string[]): ItemColumn {
  const first = at(items[0], path);
  if (sharable(first) && items.every((item) => at(item, path) === first)) return { same: first };
  return { each: items.map((item) => at(item, path)) };
}

/** `items` by column when they share one shape, else as the plain array. */
export function compactRecords<T>(items: readonly T[], keyOrder?: KeyOrder): StoredRecords<T> {
  const [first] = items;
  const shape = first === undefined ? undefined : shapeOf(first);
  if (shape === undefined) return [...items];
  for (const item of items) if (!hasShape(item, shape)) return [...items];
  const stored = ordered(shape, keyOrder);
  return { compact: 2, count: items.length, shape: stored, columns: leafPaths(stored).map((path) => columnOf(items, path)) };
}

/** Whether a stored value is this form (not the plain array, nor another log's form). */
export const isCompactRecords = (stored: unknown): stored is CompactRecords => isObject(stored) && stored.compact === 2;

/** The items a stored value holds, in order. */
export function recordsOf<T>(stored: StoredRecords<T>): T[] {
  if (Array.isArray(stored)) return stored;
  const { count, shape, columns } = stored;
  const items = new Array<T>(count);
  for (let index = 0; index < count; index++) {
    let leaf = 0;
    const build = (node: RecordShape): unknown => {
      if (node === 0) {
        const column = columns[leaf++]!;
        return "same" in column ? column.same : column.each[index];
      }
      const value: Record<string, unknown> = {};
      for (let k = 0; k < node.keys.length; k++) value[node.keys[k]!] = build(node.of[k]!);
      return value;
    };
    items[index] = build(shape) as T;
  }
  return items;
}
