import type { Principal } from "../access/principal.js";
import type { AuditActor, AuditActorType } from "./types.js";

/**
 * The actor of what `principal` does: a casekit key is `apiKey` acting on behalf of its owner;
 * a session or the host's own identity is the `user`. A principal built for casekit's own work
 * says so with `actorType` (system, automation).
 */
export function actorOf(principal: Principal): AuditActor {
  if (principal.actorType === "system" || principal.actorType === "automation") return { type: principal.actorType, id: principal.userId || null };
  if (principal.keyId !== null) return { type: "apiKey", id: principal.keyId, onBehalfOf: principal.userId };
  return { type: "user", id: principal.userId };
}

/** How storage keeps an actor: its type, the user column (the user, or whom a key acts for) and the key column. */
export function actorColumns(actor: AuditActor): { actorType: AuditActorType; actorUserId: string | null; actorKeyId: string | null } {
  if (actor.type === "apiKey") return { actorType: "apiKey", actorUserId: actor.onBehalfOf ?? null, actorKeyId: actor.id };
  return { actorType: actor.type, actorUserId: actor.id, actorKeyId: null };
}

/** The actor stored columns name (legacy rows have no type: a key's id makes an apiKey). */
export function actorFromColumns(row: { actorType: string | null; actorUserId: string | null; actorKeyId: string | null }): AuditActor {
  if (row.actorType === "apiKey" || (row.actorType === null && row.actorKeyId !== null)) {
    return row.actorUserId === null ? { type: "apiKey", id: row.actorKeyId } : { type: "apiKey", id: row.actorKeyId, onBehalfOf: row.actorUserId };
  }
  const type = (row.actorType ?? "user") as AuditActorType;
  return { type, id: row.actorUserId };
}
