import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { hashTlpEntry } from "./chain.js";
import { withinClearance } from "../access/clearance.js";
import type { TlpAction, TlpAuditEntry, TlpOutcome, TlpResourceType } from "./types.js";

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
 * appendTlpAudit for several accesses at once, in order (a list's views, a bulk page's changes):
 * one read of the head and one append of the whole run, instead of a round per entry.
 */
export async function appendTlpAuditMany(
  deps: Pick<CaseKitDeps, "ids">,
  tx: UnitOfWork,
  principal: Principal,
  accesses: readonly TlpAccess[],
  now: Date,
): Promise<void> {
  if (accesses.length === 0) return;
  await tx.tlpAudit.appendMany(await chainEntries(deps, tx, principal, accesses, now));
}

/** The hashed entries that extend the organization's chain with `accesses`, in order. */
async function chainEntries(
  deps: Pick<CaseKitDeps, "ids">,
  tx: UnitOfWork,
  principal: Principal,
  accesses: readonly TlpAccess[],
  now: Date,
): Promise<TlpAuditEntry[]> {
  let head = await tx.tlpAudit.head(principal.organizationId);
  const entries: TlpAuditEntry[] = [];
  for (const access of accesses) {
    const unhashed: Omit<TlpAuditEntry, "hash"> = {
      id: deps.ids.next("tlpa"),
      organizationId: principal.organizationId,
      seq: head.seq + 1,
      actorUserId: principal.userId,
      actorKeyId: principal.keyId,
      ...access,
      ip: principal.origin?.ip ?? null,
      userAgent: principal.origin?.userAgent ?? null,
      requestId: principal.origin?.requestId ?? null,
      at: now.toISOString(),
      prevHash: head.hash,
    };
    const entry = { ...unhashed, hash: hashTlpEntry(unhashed) };
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
