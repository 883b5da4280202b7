import type { AuditSource, DeliverableAuditEvent } from "../../server/audit-delivery/source.js";

/** A synthetic audit event of organization `org` with sequence number `seq`. */
export function auditEvent(seq: number, org = "org_a", extra: Partial<DeliverableAuditEvent> = {}): DeliverableAuditEvent {
  return {
    id: `aud_${org}_${String(seq).padStart(8, "0")}`,
    organizationId: org,
    seq,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
    action: seq % 3 === 0 ? "case.update" : "alert.promote",
    outcome: seq % 5 === 0 ? "denied" : "success",
    actor: { type: "user", id: `user_${seq % 7}` },
    target: { type: "case", id: `case_${seq}` },
    requestId: `req_${seq}`,
    ...extra,
  };
}

/** An in-memory audit log honouring AuditSource's invariants, with a switch to make reads fail. */
export function createSyntheticAuditLog() {
  const byOrg = new Map<string, DeliverableAuditEvent[]>();
  let failing = false;
  let reads = 0;
  const source: AuditSource = {
    async after(organizationId, seq, limit) {
      reads++;
      if (failing) throw new Error("database away");
      return (byOrg.get(organizationId) ?? []).filter((e) => e.seq > seq).slice(0, limit);
    },
  };
  return {
    source,
    /** Appends the next event of `org` and returns it. */
    append(org = "org_a"): DeliverableAuditEvent {
      const list = byOrg.get(org) ?? [];
      byOrg.set(org, list);
      const event = auditEvent(list.length + 1, org);
      list.push(event);
      return event;
    },
    fail(on: boolean) {
      failing = on;
    },
    get reads() {
      return reads;
    },
  };
}
