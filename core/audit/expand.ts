import { itemId } from "../log/groups.js";
import { changesOf } from "./changes.js";
import type { AuditEvent, ChainedAuditRow } from "./types.js";

/**
 * The events a stored row stands for: itself, or one per item of a group, in item order, each
 * with its own position (the group's seq + the item's), the id `<group id>.<position>`, the
 * item's record, case, marking and changes, and the group's other fields.
 */
export function expandAuditRow(row: ChainedAuditRow): AuditEvent[] {
  const { items, prevHash: _prevHash, hash: _hash, ...event } = row;
  const single: AuditEvent = { ...event, changes: changesOf(event.changes) };
  if (!items) return [single];
  return items.map((item, position) => ({
    ...single,
    id: itemId(row.id, position),
    seq: row.seq + position,
    target: item.caseId ? { type: row.target.type, id: item.resourceId, caseId: item.caseId } : { type: row.target.type, id: item.resourceId },
    // Items written before audit events have no marking of their own: their row's (the highest) holds.
    tlp: item.tlp === undefined ? row.tlp : item.tlp,
    changes: changesOf(item.changes),
  }));
}
