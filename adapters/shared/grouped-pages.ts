/**
 * Keyset pages of a log that holds group rows (one row for many records, core/log/groups.ts),
 * newest first, as readers see them: each group row expanded into its items, last item first. A
 * page may end inside a group; its cursor is then an expanded id, and the next page starts with
 * the rest of that group.
 */
import { splitItemId } from "../../core/log/groups.js";

/** One newest-first stream of rows, and how a row reads (its entries, in item order, filtered). */
export interface GroupedStream<Row extends { id: string }, T> {
  /** At most `limit` rows below `before` (a row id; none: from the newest), newest first. */
  rows(before: string | undefined, limit: number): Promise<Row[]>;
  /** The row with this id, or null (a cursor's group). */
  row(id: string): Promise<Row | null>;
  /** The entries the row stands for, oldest first (a single row: itself), only those the reader keeps. */
  expand(row: Row): T[];
}

/** Where an entry stands in newest-first order: its row's id, then its position (a single row: after every item). */
function keyOf(id: string): { row: string; position: number } {
  const split = splitItemId(id);
  return split ? { row: split.groupId, position: split.position } : { row: id, position: Number.POSITIVE_INFINITY };
}

/** Newest first: a later row first, and within a group the later item. */
export function newestFirst(a: { id: string }, b: { id: string }): number {
  const x = keyOf(a.id);
  const y = keyOf(b.id);
  if (x.row !== y.row) return x.row < y.row ? 1 : -1;
  return y.position - x.position;
}

/** Up to `limit` entries of `stream` below the cursor `beforeId` (a row's or an item's id), newest first. */
export async function groupedPage<Row extends { id: string }, T extends { id: string }>(stream: GroupedStream<Row, T>, limit: number, beforeId: string | undefined): Promise<T[]> {
  const found: T[] = [];
  if (limit <= 0) return found;
  let before = beforeId;
  const split = beforeId === undefined ? undefined : splitItemId(beforeId);
  if (split) {
    // The rest of the cursor's group first: its items before the cursor's position.
    const group = await stream.row(split.groupId);
    if (group) found.push(...stream.expand(group).filter((entry) => keyOf(entry.id).position < split.position).reverse());
    before = split.groupId;
  }
  while (found.length < limit) {
    const rows = await stream.rows(before, limit);
    for (const row of rows) found.push(...stream.expand(row).reverse());
    if (rows.length < limit) break;
    before = rows[rows.length - 1]!.id;
  }
  return found.slice(0, limit);
}

/** Two newest-first pages merged into one of at most `limit` entries. */
export function mergeNewestFirst<T extends { id: string }>(a: readonly T[], b: readonly T[], limit: number): T[] {
  return [...a, ...b].sort(newestFirst).slice(0, limit);
}
