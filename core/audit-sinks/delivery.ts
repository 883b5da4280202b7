import type { Principal } from "../access/principal.js";
import { redactForReader } from "../audit/redact.js";
import type { AuditEvent } from "../audit/types.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { deliveryPrincipal, isBlocked } from "../webhooks/grant.js";
import { holdersOf } from "../webhooks/send-context.js";
import type { StoredAuditSink } from "./types.js";

/** How many active sinks one read loads (the host pages through them all). */
const sinksPerRead = 500;

/**
 * What a delivery host needs from storage to run organizations' sinks (server/audit-delivery):
 * which sinks are active, what each may send next, and where each stands. Every read is bound to
 * the sink's grant, so no host has a rule of its own.
 */
export function createAuditSinkDelivery(deps: Pick<CaseKitDeps, "storage" | "clock" | "definitions">) {
  const { storage, clock } = deps;

  /** The principal the sink reads as now, or null when it may send nothing (held: see deliveryPrincipal). */
  async function readerOf(tx: UnitOfWork, sink: StoredAuditSink): Promise<Principal | null> {
    const principal = deliveryPrincipal(sink, await holdersOf(tx, sink), clock.now());
    if (isBlocked(principal) || !principal.scopes.has("audit:read")) return null;
    return principal;
  }

  return {
    /** Every organization's active sinks, in id order. */
    async activeSinks(): Promise<StoredAuditSink[]> {
      const all: StoredAuditSink[] = [];
      for (;;) {
        const page = await storage.read((tx) => tx.auditSinks.activeAfter(all.at(-1)?.id ?? null, sinksPerRead));
        all.push(...page);
        if (page.length < sinksPerRead) return all;
      }
    },

    /**
     * The sink's organization's events after `afterSeq`, oldest first, at most `limit`, as the
     * sink's grant may read them now: values above its clearance or a custom field's floor are
     * redacted (as GET /audit-events redacts them). Nothing while the grant is held (its key
     * suspended, revoked or expired, its owner not active, or no `audit:read` left): the events
     * wait, and go out once it is back.
     */
    async eventsAfter(sink: StoredAuditSink, afterSeq: number, limit: number): Promise<AuditEvent[]> {
      return storage.read(async (tx) => {
        // The events first: a sink polls every second, and most polls find none to send.
        const events = await tx.audit.pageAfter(sink.organizationId, afterSeq, limit);
        if (events.length === 0) return events;
        const reader = await readerOf(tx, sink);
        if (!reader) return [];
        return redactForReader(deps, tx, sink.organizationId, reader.tlpClearance, events);
      });
    },

    /** The seq the sink delivered last (0: none). */
    cursor: (organizationId: string, sinkId: string): Promise<number> => storage.read((tx) => tx.auditSinks.cursor(organizationId, sinkId)),

    /**
     * Takes or renews the sink's delivery lease for `holder`, for `leaseMs` from now: true when
     * this host may run the sink (nobody else held it, or their lease ran out).
     */
    async claim(sink: StoredAuditSink, holder: string, leaseMs: number): Promise<boolean> {
      const now = clock.now();
      const until = new Date(now.getTime() + leaseMs).toISOString();
      return storage.transaction((tx) => tx.auditSinks.claimLease(sink.organizationId, sink.id, holder, now.toISOString(), until));
    },

    /** Gives the lease up (a host stopping, or no longer running the sink). */
    release: (sink: Pick<StoredAuditSink, "id" | "organizationId">, holder: string): Promise<void> =>
      storage.transaction((tx) => tx.auditSinks.releaseLease(sink.organizationId, sink.id, holder)),

    /**
     * Moves the sink's cursor while `holder` holds its lease. A sink deleted meanwhile keeps none
     * (its delivery is being stopped); a lease lost to another host throws AuditSinkLeaseLost,
     * and that host goes on from the cursor as stored.
     */
    async setCursor(organizationId: string, sinkId: string, seq: number, holder: string): Promise<void> {
      await storage.transaction(async (tx) => {
        if (await tx.auditSinks.setLeasedCursor(organizationId, sinkId, holder, seq, clock.now().toISOString())) return;
        // Not moved: the sink was deleted (its cursor row with it), or another host holds the lease.
        if (await tx.auditSinks.findById(organizationId, sinkId)) throw new AuditSinkLeaseLost(sinkId);
      });
    },
  };
}

/** The host moving a sink's cursor no longer holds its lease: another host runs the sink now. */
export class AuditSinkLeaseLost extends Error {
  /** Retrying cannot help: the sink's delivery here ends (server/audit-delivery/syslog-sink.ts). */
  readonly stopsDelivery = true;
  constructor(readonly sinkId: string) {
    super(`audit sink ${sinkId}: the delivery lease passed to another host`);
    this.name = "AuditSinkLeaseLost";
  }
}

export type AuditSinkDelivery = ReturnType<typeof createAuditSinkDelivery>;
