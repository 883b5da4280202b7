/**
 * Writes status history inside the unit of work that changes the status, so a change and its
 * history commit together. A change that keeps the status writes nothing.
 */
import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { statusOf } from "../lifecycles/engine.js";
import type { Lifecycle } from "../lifecycles/types.js";
import type { UnitOfWork } from "../ports/storage.js";
import type { StatusChange } from "./types.js";

export interface StatusMove {
  recordId: string;
  /** null for a record just created. */
  from: string | null;
  to: string;
  /** The lifecycle `from` belonged to, when the move also changed lifecycles (a case's new type); the move's own otherwise. */
  fromLifecycle?: Lifecycle;
}

/** The history entry of one move, with the categories `lifecycle` gives its statuses now. */
export function statusChangeOf(deps: Pick<CaseKitDeps, "ids">, actor: Principal, lifecycle: Lifecycle, move: StatusMove, at: Date, reason?: string | null): StatusChange {
  return {
    id: deps.ids.next("sth"),
    organizationId: actor.organizationId,
    entity: lifecycle.entity,
    recordId: move.recordId,
    from: move.from,
    to: move.to,
    fromCategory: move.from === null ? null : (statusOf(move.fromLifecycle ?? lifecycle, move.from)?.category ?? null),
    toCategory: statusOf(lifecycle, move.to)?.category ?? null,
    actorUserId: actor.userId,
    actorKeyId: actor.keyId,
    at: at.toISOString(),
    reason: reason ?? null,
  };
}

/** Records the moves that change a status (a bulk page's in few statements: appendMany). */
export async function recordStatusMoves(deps: Pick<CaseKitDeps, "ids">, tx: UnitOfWork, actor: Principal, lifecycle: Lifecycle, moves: readonly StatusMove[], at: Date, reason?: string | null): Promise<void> {
  const changes = moves.filter((move) => move.from !== move.to).map((move) => statusChangeOf(deps, actor, lifecycle, move, at, reason));
  if (changes.length === 1) await tx.statusHistory.append(changes[0]!);
  else if (changes.length > 1) await tx.statusHistory.appendMany(changes);
}
