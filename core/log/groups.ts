/**
 * Group entries: one stored row of a log (audit trail, outbox, TLP audit chain) standing for many
 * records (a bulk operation, a list's views), and how readers see it: one entry per item, as if
 * each had been written alone. Expanded entries are never stored; their ids are the group's id,
 * a dot and the item's position, so they sort right after the group's id and before the next
 * row's, and a cursor on one names its group.
 */
import type { AuditEntry, AuditItem } from "../audit/types.js";
import type { DomainEvent } from "../events/types.js";
import type { StoredEventItems } from "./compact-items.js";
import { eventItemsOf } from "./compact-items.js";
import type { StoredTlpAuditEntry, TlpAuditEntry } from "../tlp/types.js";

/** The id of the item at `position` of group `groupId`. */
export const itemId = (groupId: string, position: number): string => `${groupId}.${position}`;

/** The group and position an expanded entry's id names, or undefined for a row's own id. */
export function splitItemId(id: string): { groupId: string; position: number } | undefined {
  const dot = id.lastIndexOf(".");
  if (dot < 0) return undefined;
  const position = Number(id.slice(dot + 1));
  return Number.isSafeInteger(position) && position >= 0 ? { groupId: id.slice(0, dot), position } : undefined;
}

/** The audit entries a stored row stands for, in item order (just itself when it is no group). */
export function expandAudit(row: AuditEntry & { items?: readonly AuditItem[] | null }): AuditEntry[] {
  const { items, ...entry } = row;
  if (!items) return [entry];
  return items.map((item, position) => ({ ...entry, id: itemId(entry.id, position), resourceId: item.resourceId, changes: item.changes }));
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
