/**
 * What the audit log's readers should see of events a test appended: each at its chain position,
 * a group as one event per item (ids `<group id>.<position>`, positions seq, seq+1 …), written
 * out plainly here rather than by the core's own expansion.
 */
import type { AuditEvent, NewAuditEvent } from "../../core/index.js";
import { expect } from "vitest";

/** The events `appended`, in order, read back, the first at position `firstSeq`. */
export function readBack(appended: readonly NewAuditEvent[], firstSeq = 1): AuditEvent[] {
  const out: AuditEvent[] = [];
  let seq = firstSeq;
  for (const { items, ...event } of appended) {
    if (!items) {
      out.push({ ...event, seq: seq++ });
      continue;
    }
    items.forEach((item, position) => {
      const target = item.caseId ? { type: event.target.type, id: item.resourceId, caseId: item.caseId } : { type: event.target.type, id: item.resourceId };
      out.push({ ...event, id: `${event.id}.${position}`, seq: seq++, target, tlp: item.tlp ?? null, changes: item.changes });
    });
  }
  return out;
}

/** Walks an audit list newest first in pages of `size` (cursor: the last seq seen); the ids in order. */
export async function walkAuditPages(fetch: (page: { limit: number; beforeSeq?: number }) => Promise<AuditEvent[]>, size: number): Promise<string[]> {
  const seen: string[] = [];
  let beforeSeq: number | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await fetch(beforeSeq === undefined ? { limit: size } : { limit: size, beforeSeq });
    expect(page.length).toBeLessThanOrEqual(size);
    seen.push(...page.map((r) => r.id));
    if (page.length < size) return seen;
    beforeSeq = page[page.length - 1]!.seq;
  }
  throw new Error("paging did not end");
}

