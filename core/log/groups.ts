/**
 * Group entries: one stored row of a log (audit trail, outbox, TLP audit chain) standing for many
 * records (a bulk operation, a list's views), and how readers see it: one entry per item, as if
 * each had been written alone. Expanded entries are never stored; their ids are the group's id,
 * a dot and the item's position, so they sort right after the group's id and before the next
 * row's, and a cursor on one names its group.
 *
 * How a group is stored is one rule for the three logs: a row never holds more than
 * `itemsPerRow` items. A larger group's row holds a small marker (ChunkedItems) and its items
 * are stored in rows of their own, `itemsPerRow` at a time (adapters/shared/group-items.ts), so
 * no single statement writes megabytes (the event loop gets its turn between two) and an update
 * of the group's row (the dispatcher's claim of a group event) never rewrites its items.
 */
import type { DomainEvent } from "../events/types.js";
import type { StoredEventItems } from "./compact-items.js";
import { eventItemsOf } from "./compact-items.js";
import type { StoredTlpAuditEntry, TlpAuditEntry } from "../tlp/types.js";

/** The most items one stored row holds: a chunk of a bulk's items is a couple of hundred kilobytes at most. */
export const itemsPerRow = 2_000;

/** What a group row's items column holds when its items are in chunk rows. */
export interface ChunkedItems {
  /** How many chunk rows, each of `itemsPerRow` items but the last. */
  chunks: number;
  /** How many items in all. */
  count: number;
}

/** Whether a group row's stored items are the marker of chunk rows (else they are the items, in some log's form). */
export function isChunked(stored: unknown): stored is ChunkedItems {
  return stored !== null && typeof stored === "object" && !Array.isArray(stored) && typeof (stored as ChunkedItems).chunks === "number" && !("compact" in stored);
}

/** `items` in chunks of `itemsPerRow`, in order. */
export function chunksOf<T>(items: readonly T[], size = itemsPerRow): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/** The id of the item at `position` of group `groupId`. */
export const itemId = (groupId: string, position: number): string => `${groupId}.${position}`;

/** The group and position an expanded entry's id names, or undefined for a row's own id. */
export function splitItemId(id: string): { groupId: string; position: number } | undefined {
  const dot = id.lastIndexOf(".");
  if (dot < 0) return undefined;
  const position = Number(id.slice(dot + 1));
  return Number.isSafeInteger(position) && position >= 0 ? { groupId: id.slice(0, dot), position } : undefined;
}

/** The events a stored row stands for, in item order (its items by column or one by one: compact-items.ts). */
export function expandEvent(row: DomainEvent & { items?: StoredEventItems | null }): DomainEvent[] {
  const { items: stored, ...event } = row;
  if (!stored) return [event];
  return eventItemsOf(stored).map((item, position) => ({ ...event, id: itemId(event.id, position), resourceId: item.resourceId, tlp: item.tlp, payload: item.payload }));
}

/**
 * The TLP audit entries a stored row stands for, in item order. Each keeps its group's seq,
 * prevHash and hash: the chain position that vouches for it (verification reads the rows).
 */
export function expandTlpAudit(row: StoredTlpAuditEntry | (TlpAuditEntry & { items?: null })): TlpAuditEntry[] {
  const { items, ...entry } = row;
  if (!items) return [entry];
  return items.map((item, position) => ({ ...entry, ...item, id: itemId(entry.id, position) }));
}
