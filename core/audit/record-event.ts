import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { actorOf } from "./actor.js";
import { maskSecrets } from "./secrets.js";
import type { AuditActor, AuditChange, AuditOutcome, AuditTarget, NewAuditEvent } from "./types.js";

/** An audit event that is no record's change: a sign-in, a refusal, a system job's work. */
export interface AuditNote {
  organizationId: string;
  /** The principal acting, or the actor itself where no principal exists (a failed sign-in). */
  actor: Principal | AuditActor;
  origin?: Principal["origin"];
  action: string;
  target: AuditTarget;
  outcome: AuditOutcome;
  changes?: readonly AuditChange[];
  tlp?: number | null;
  now: Date;
}

/**
 * The audit event of a note, as every writer builds it (recordAuditEvent, and a record's change in
 * record-change.ts): who from the principal and its origin, `changes` as given (masked already).
 */
export function newAuditEvent(deps: Pick<CaseKitDeps, "ids">, note: Omit<AuditNote, "changes" | "tlp"> & { changes: AuditChange[]; tlp: number | null; bulkRequestId: string | null }): NewAuditEvent {
  const principal = "organizationId" in note.actor ? note.actor : undefined;
  const origin = note.origin ?? principal?.origin;
  return {
    id: deps.ids.next("aud"),
    organizationId: note.organizationId,
    at: note.now.toISOString(),
    actor: principal ? actorOf(principal) : (note.actor as AuditActor),
    requestId: origin?.requestId ?? null,
    ip: origin?.ip ?? null,
    userAgent: origin?.userAgent ?? null,
    action: note.action,
    target: note.target,
    outcome: note.outcome,
    changes: note.changes,
    bulkRequestId: note.bulkRequestId,
    tlp: note.tlp,
  };
}

/** Writes one audit event inside the caller's unit of work (chained there, like every event). */
export async function recordAuditEvent(deps: Pick<CaseKitDeps, "ids">, tx: UnitOfWork, note: AuditNote): Promise<void> {
  await tx.audit.append(newAuditEvent(deps, { ...note, changes: maskSecrets([...(note.changes ?? [])]), tlp: note.tlp ?? null, bulkRequestId: null }));
}

/**
 * Writes a refused attempt (`outcome: denied`) in a unit of work of its own: the refused one
 * rolls back, and the record of the refusal must not roll back with it (as core/tlp's
 * withTlpDenialAudit does for the TLP log).
 */
export async function recordDenial(deps: Pick<CaseKitDeps, "ids" | "storage" | "clock">, principal: Principal, attempt: { action: string; target: AuditTarget }): Promise<void> {
  const now = deps.clock.now();
  await deps.storage.transaction((tx) => recordAuditEvent(deps, tx, { organizationId: principal.organizationId, actor: principal, ...attempt, outcome: "denied", now }));
}
