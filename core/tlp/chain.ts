import type { ChainHead, ChainVerdict } from "../log/chain.js";
import { linkHash, verifyLinks } from "../log/chain.js";
import type { StoredTlpAuditEntry } from "./types.js";

export type { ChainVerdict } from "../log/chain.js";

type Unhashed = Omit<StoredTlpAuditEntry, "hash">;

/**
 * The hash of an entry (core/log/chain.ts linkHash) covers the previous entry's hash and every
 * field of its own, in a fixed order. A group entry's items (each record's id, action, markings
 * and outcome, in order) are one more field, so its id list is covered too; single entries hash
 * as they always did.
 */
export function hashTlpEntry(entry: Unhashed): string {
  const fields: unknown[] = [
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
  return linkHash(entry.prevHash, fields);
}

/** Walks entries in chain order (seq ascending), resuming from `previous` when given. One position per entry, groups included. */
export function verifyTlpChain(entries: Iterable<StoredTlpAuditEntry>, previous: ChainHead = { seq: 0, hash: "" }): ChainVerdict {
  const { head: _head, ...verdict } = verifyLinks(entries, ({ hash: _hash, ...rest }) => hashTlpEntry(rest), undefined, previous);
  return verdict;
}

/** Whether entries, in order, extend the chain whose last entry is `head` (no gap, no fork): one position per entry. */
export { extendsChain } from "../log/chain.js";
