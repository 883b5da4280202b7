import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { hashTlpEntry } from "./chain.js";
import { withinClearance } from "../access/clearance.js";
import type { StoredTlpAuditEntry, TlpAction, TlpAuditItem, TlpOutcome, TlpResourceType } from "./types.js";

export interface TlpAccess {
  resourceType: TlpResourceType;
  resourceId: string;
  action: TlpAction;
  tlpBefore: number | null;
  tlpAfter: number | null;
  outcome: TlpOutcome;
}

/**
 * Appends one entry to the organization's TLP audit chain inside the caller's unit of work, so
 * the entry commits with the action it records. `tx.tlpAudit.head` holds the chain until commit.
 */
export async function appendTlpAudit(
  deps: Pick<CaseKitDeps, "ids">,
  tx: UnitOfWork,
  principal: Principal,
  access: TlpAccess,
  now: Date,
): Promise<void> {
  const [entry] = await chainEntries(deps, tx, principal, [access], now);
  await tx.tlpAudit.append(entry!);
}

/**
 * appendTlpAudit for several accesses at once (a list's views, a bulk operation's changes): ONE
 * entry of the chain listing them (a group entry, core/tlp/types.ts), its hash covering the list.
 * `groupId` names the group (the bulk request id; a list's first record by default). A single
 * access is written as a plain entry.
 */
export async function appendTlpAuditMany(
  deps: Pick<CaseKitDeps, "ids">,
  tx: UnitOfWork,
  principal: Principal,
  accesses: readonly TlpAccess[],
  now: Date,
  groupId?: string,
): Promise<void> {
  const [first] = accesses;
  if (first === undefined) return;
  if (accesses.length === 1 && groupId === undefined) return appendTlpAudit(deps, tx, principal, first, now);
  // The group's own markings are its items' lowest, so a storage filter by clearance keeps every
  // group that holds an item the reader may see; the log's readers then judge each item.
  const lowest = (pick: (access: TlpAccess) => number | null) => accesses.map(pick).reduce((a, b) => (a === null || b === null ? null : Math.min(a, b)));
  const group: TlpAccess = {
    resourceType: first.resourceType,
    resourceId: groupId ?? first.resourceId,
    action: first.action,
    tlpBefore: lowest((a) => a.tlpBefore),
    tlpAfter: lowest((a) => a.tlpAfter),
    outcome: first.outcome,
  };
  const items = accesses.map(({ resourceId, action, tlpBefore, tlpAfter, outcome }) => ({ resourceId, action, tlpBefore, tlpAfter, outcome }));
  const [entry] = await chainEntries(deps, tx, principal, [group], now, items);
  await tx.tlpAudit.append(entry!);
}

/** The hashed entries that extend the organization's chain with `accesses`, in order. */
async function chainEntries(
  deps: Pick<CaseKitDeps, "ids">,
  tx: UnitOfWork,
  principal: Principal,
  accesses: readonly TlpAccess[],
  now: Date,
  items?: readonly TlpAuditItem[],
): Promise<StoredTlpAuditEntry[]> {
  let head = await tx.tlpAudit.head(principal.organizationId);
  const entries: StoredTlpAuditEntry[] = [];
  for (const access of accesses) {
    // One object per entry, its hash filled in once known, member by member (no spread: V8 adds
    // the members after a spread to its copy slowly).
    const entry: StoredTlpAuditEntry = {
      id: deps.ids.next("tlpa"),
      organizationId: principal.organizationId,
      seq: head.seq + 1,
      actorUserId: principal.userId,
      actorKeyId: principal.keyId,
      resourceType: access.resourceType,
      resourceId: access.resourceId,
      action: access.action,
      tlpBefore: access.tlpBefore,
      tlpAfter: access.tlpAfter,
      outcome: access.outcome,
      ip: principal.origin?.ip ?? null,
      userAgent: principal.origin?.userAgent ?? null,
      requestId: principal.origin?.requestId ?? null,
      at: now.toISOString(),
      prevHash: head.hash,
      hash: "",
    };
    if (items) entry.items = items;
    entry.hash = hashTlpEntry(entry);
    entries.push(entry);
    head = entry;
  }
  return entries;
}

/**
 * A refusal because of TLP. It carries the attempt so that `withTlpDenialAudit` can record it
 * after the refused unit of work has rolled back.
 */
export class TlpDeniedError extends CaseKitError {
  readonly attempt: TlpAccess;

  constructor(attempt: TlpAccess) {
    super("tlp_restricted");
    this.attempt = attempt;
  }
}

/**
 * Throws TlpDeniedError when `record.tlp` (the record's effective TLP: core/tlp/effective.ts) or
 * the marking it would get is above the principal's clearance.
 */
export function guardTlp(
  principal: Principal,
  record: { id: string; tlp: number },
  resourceType: TlpResourceType,
  action: TlpAction,
  tlpAfter: number | null = record.tlp,
): void {
  if (!withinClearance(record.tlp, principal.tlpClearance) || (tlpAfter !== null && !withinClearance(tlpAfter, principal.tlpClearance))) {
    throw new TlpDeniedError({ resourceType, resourceId: record.id, action, tlpBefore: record.tlp, tlpAfter, outcome: "denied" });
  }
}

/**
 * Runs `work`; if it was refused for TLP, writes the denied attempt in a unit of work of its own
 * (the refused one rolled back) and rethrows.
 */
export async function withTlpDenialAudit<T>(deps: CaseKitDeps, principal: Principal, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TlpDeniedError) {
      const now = deps.clock.now();
      await deps.storage.transaction((tx) => appendTlpAudit(deps, tx, principal, error.attempt, now));
    }
    throw error;
  }
}
