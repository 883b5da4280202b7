import { createHash } from "node:crypto";
import type { StoredTlpAuditEntry, TlpAuditEntry } from "./types.js";

type Unhashed = Omit<StoredTlpAuditEntry, "hash">;

/**
 * The hash of an entry covers the previous entry's hash and every field of its own, in a fixed
 * order, so changing, removing or reordering any row breaks the chain from that row on. A group
 * entry's items (each record's id, action, markings and outcome, in order) are one more field,
 * so its id list is covered too; single entries hash as they always did.
 */
export function hashTlpEntry(entry: Unhashed): string {
  const fields: unknown[] = [
    entry.prevHash,
    entry.id,
    entry.organizationId,
    entry.seq,
    entry.actorUserId,
    entry.actorKeyId,
    entry.resourceType,
    entry.resourceId,
    entry.action,
    entry.tlpBefore,
    entry.tlpAfter,
    entry.outcome,
    entry.ip,
    entry.userAgent,
    entry.requestId,
    entry.at,
  ];
  if (entry.items !== undefined) fields.push(entry.items.map((item) => [item.resourceId, item.action, item.tlpBefore, item.tlpAfter, item.outcome]));
  return createHash("sha256").update(JSON.stringify(fields)).digest("hex");
}

export interface ChainVerdict {
  ok: boolean;
  /** How many entries were checked. */
  checked: number;
  /** The first entry whose content, link or position does not match; absent when ok. */
  firstBad?: { id: string | null; seq: number; reason: "hash" | "link" | "sequence" | "missing" };
}

/** Walks entries in chain order (seq ascending), resuming from `previous` when given. */
export function verifyTlpChain(
  entries: Iterable<StoredTlpAuditEntry>,
  previous: { seq: number; hash: string } = { seq: 0, hash: "" },
): ChainVerdict {
  let { seq, hash } = previous;
  let checked = 0;
  for (const entry of entries) {
    checked++;
    if (entry.seq !== seq + 1) return { ok: false, checked, firstBad: { id: entry.id, seq: entry.seq, reason: "sequence" } };
    if (entry.prevHash !== hash) return { ok: false, checked, firstBad: { id: entry.id, seq: entry.seq, reason: "link" } };
    const { hash: stored, ...rest } = entry;
    if (hashTlpEntry(rest) !== stored) return { ok: false, checked, firstBad: { id: entry.id, seq: entry.seq, reason: "hash" } };
    seq = entry.seq;
    hash = stored;
  }
  return { ok: true, checked };
}

/** Whether `entries`, in order, extend the chain whose last entry is `head` (no gap, no fork). */
export function extendsChain(head: { seq: number; hash: string }, entries: readonly Pick<TlpAuditEntry, "organizationId" | "seq" | "prevHash" | "hash">[]): boolean {
  let previous = head;
  for (const entry of entries) {
    if (entry.organizationId !== entries[0]!.organizationId) return false;
    if (entry.seq !== previous.seq + 1 || entry.prevHash !== previous.hash) return false;
    previous = entry;
  }
  return true;
}
