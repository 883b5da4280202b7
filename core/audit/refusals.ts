import type { Principal, RequestOrigin } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { actorOf } from "./actor.js";
import { recordAuditEvent } from "./record-event.js";
import type { AuditActor, AuditChange, AuditTarget } from "./types.js";

/** One window of the refusal log: refusals of the same kind within it become at most two events. */
export const refusalWindowMs = 60_000;
/** Kinds of refusal one organization has written at once per window; beyond it they are only counted. */
export const refusalKindsPerWindow = 100;

/** A refused attempt: a failed key authentication, a missing scope, a TLP denial, a CSRF rejection… */
export interface Refusal {
  organizationId: string;
  /** Who was refused: a principal, or the actor where none exists (a key that no longer works). */
  actor: Principal | AuditActor;
  origin?: RequestOrigin;
  /** `key.authentication_failed`, `request.denied`, `user.sign_in_failed`, `session.csrf_rejected`. */
  action: string;
  target: AuditTarget;
  /** The error code that refused it: `key_revoked`, `missing_scope`, `tlp_restricted` … */
  reason: string;
  /** `denied` (the default), or `failure` where the log calls the attempt that (a failed sign-in). */
  outcome?: "denied" | "failure";
}

/** What one kind of refusal has gathered in its window: the first is written, the rest counted. */
interface Kind {
  window: number;
  organizationId: string;
  actor: AuditActor;
  action: string;
  target: AuditTarget;
  reason: string;
  outcome: "denied" | "failure";
  /** Refusals after the first in this window, not yet written. */
  repeated: number;
}

/** An organization's window: how many kinds it has written, and what went beyond the cap. */
interface OrganizationWindow {
  window: number;
  kinds: number;
  /** Refusals past the cap, counted per (action, reason). */
  suppressed: Map<string, { action: string; reason: string; outcome: "denied" | "failure"; count: number }>;
}

export interface RefusalLog {
  /** Records a refusal: written at once when it is the first of its kind in the window, counted otherwise. */
  note(refusal: Refusal): Promise<void>;
  /**
   * Writes what closed windows counted (`all`: every window, closed or not, at shutdown). The
   * host calls it about once a window; core starts no timers. Also retries what a failed write
   * kept (and rejects while storage fails).
   */
  flush(options?: { all?: boolean }): Promise<void>;
}

/**
 * The refusal log: refusals are audit events (`outcome: denied`, a failed sign-in `failure`) but an attack must not flood
 * the chain. Per kind — (organization, actor, action, target, reason) — and window, the first
 * refusal is written at once with `count` 1; the ones after it are counted and written as ONE
 * event (`count` n, `window` [start, end)) when its window closes: at the next refusal of the
 * kind or the host's flush. An organization writes at most `kindsPerWindow` kinds a window; the
 * refusals of further kinds are counted per (action, reason) and written as one `suppressed`
 * event each when the window closes. So a window costs an organization at most 2 × kinds + one
 * per (action, reason) rows, and the `count`s of its events add up to exactly the refusals.
 * Counts live in this process until flushed: each host counts its own refusals (their events add up).
 */
export function createRefusalLog(
  deps: Pick<CaseKitDeps, "ids" | "storage" | "clock">,
  options: { windowMs?: number; kindsPerWindow?: number } = {},
): RefusalLog {
  const windowMs = options.windowMs ?? refusalWindowMs;
  const cap = options.kindsPerWindow ?? refusalKindsPerWindow;
  const kinds = new Map<string, Kind>();
  const organizations = new Map<string, OrganizationWindow>();
  const windowOf = (now: Date) => Math.floor(now.getTime() / windowMs);
  const span = (window: number): AuditChange => ({
    path: "window",
    before: new Date(window * windowMs).toISOString(),
    after: new Date((window + 1) * windowMs).toISOString(),
  });

  /** A pending write: one audit event in its own unit of work (the refused one rolled back). */
  type Write = Parameters<typeof recordAuditEvent>[2];
  const repeatedOf = (kind: Kind, now: Date): Write => ({
    organizationId: kind.organizationId,
    actor: kind.actor,
    action: kind.action,
    target: kind.target,
    outcome: kind.outcome,
    changes: [{ path: "reason", before: null, after: kind.reason }, { path: "count", before: null, after: kind.repeated }, span(kind.window)],
    now,
  });
  const suppressedOf = (organizationId: string, window: number, now: Date): Write[] =>
    [...(organizations.get(organizationId)?.suppressed.values() ?? [])].map(({ action, reason, outcome, count }) => ({
      organizationId,
      // Many actors, none named: the log itself reports what it only counted.
      actor: { type: "system", id: null },
      action,
      target: { type: "organization", id: organizationId },
      outcome,
      changes: [
        { path: "reason", before: null, after: reason },
        { path: "count", before: null, after: count },
        { path: "suppressed", before: null, after: true },
        span(window),
      ],
      now,
    }));

  /** Windows before this one have been closed. */
  let closedBefore = -Infinity;

  /** Takes (and forgets) what windows before `current` counted; every window when `current` is null. */
  function closeWindows(current: number | null, now: Date): Write[] {
    const writes: Write[] = [];
    for (const [key, kind] of kinds) {
      if (current !== null && kind.window >= current) continue;
      if (kind.repeated > 0) writes.push(repeatedOf(kind, now));
      kinds.delete(key);
    }
    for (const [organizationId, organization] of organizations) {
      if (current !== null && organization.window >= current) continue;
      writes.push(...suppressedOf(organizationId, organization.window, now));
      organizations.delete(organizationId);
    }
    return writes;
  }

  /** Events taken from the counts but not yet stored: kept until a write succeeds, so no count is lost. */
  let pending: Write[] = [];
  async function write(writes: readonly Write[]): Promise<void> {
    pending.push(...writes);
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    try {
      await deps.storage.transaction(async (tx) => {
        for (const note of batch) await recordAuditEvent(deps, tx, note);
      });
    } catch (error) {
      pending = [...batch, ...pending];
      throw error;
    }
  }

  return {
    async note(refusal) {
      const now = deps.clock.now();
      const window = windowOf(now);
      const actor = "organizationId" in refusal.actor ? actorOf(refusal.actor) : refusal.actor;
      const outcome = refusal.outcome ?? "denied";
      const key = JSON.stringify([refusal.organizationId, actor.type, actor.id, refusal.action, refusal.target.type, refusal.target.id, refusal.reason]);
      // Everything here runs before the first await: concurrent refusals never count twice or miss.
      const kind = kinds.get(key);
      // A clock set back counts into the window the kind already has: no count is dropped.
      if (kind && kind.window >= window) {
        kind.repeated += 1;
        return;
      }
      // The first refusal of a new window closes whatever older windows still hold (every kind's);
      // within a window nothing is left to close, so a flood's refusals do not walk the kinds.
      const writes: Write[] = [];
      if (window > closedBefore) {
        writes.push(...closeWindows(window, now));
        closedBefore = window;
      }
      let organization = organizations.get(refusal.organizationId);
      if (!organization) {
        organization = { window, kinds: 0, suppressed: new Map() };
        organizations.set(refusal.organizationId, organization);
      }
      if (organization.kinds < cap) {
        organization.kinds += 1;
        kinds.set(key, { window, organizationId: refusal.organizationId, actor, action: refusal.action, target: refusal.target, reason: refusal.reason, outcome, repeated: 0 });
        writes.push({
          organizationId: refusal.organizationId,
          actor: refusal.actor,
          ...(refusal.origin ? { origin: refusal.origin } : {}),
          action: refusal.action,
          target: refusal.target,
          outcome,
          changes: [
            { path: "reason", before: null, after: refusal.reason },
            { path: "count", before: null, after: 1 },
          ],
          now,
        });
      } else {
        const bucket = `${refusal.action} ${refusal.reason}`;
        const counted = organization.suppressed.get(bucket);
        if (counted) counted.count += 1;
        else organization.suppressed.set(bucket, { action: refusal.action, reason: refusal.reason, outcome, count: 1 });
      }
      // The refusal is answered whatever happens to its record; what failed is written by the next flush.
      await write(writes).catch(() => undefined);
    },

    async flush(options = {}) {
      const now = deps.clock.now();
      await write(closeWindows(options.all ? null : windowOf(now), now));
    },
  };
}
