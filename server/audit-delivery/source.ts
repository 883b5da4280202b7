import type { AuditEvent } from "../../core/index.js";

/**
 * What audit delivery (the syslog sink, the export and the event stream) needs from audit storage,
 * and nothing more, so delivery is built and tested without the storage and wired to it in one place.
 */

/**
 * The fields delivery reads from an audit event (core/audit/types.ts AuditEvent, the one event
 * model: `at`, a nullable actor id); the event itself travels whole, as JSON.
 */
export type DeliverableAuditEvent = Pick<AuditEvent, "id" | "organizationId" | "seq" | "at" | "action" | "outcome" | "actor" | "target" | "requestId">;

/**
 * An ascending read of one organization's audit events by sequence number.
 *
 * Invariants the storage guarantees:
 * - `after(org, seq, limit)` answers at most `limit` events of `org` with `seq` above the given
 *   one, ascending by `seq`; an empty array when there are none (yet).
 * - Entries become visible in `seq` order: once an event with seq n has been answered, no event
 *   with a lower seq appears later (true when appends are serialized per organization, as the
 *   hash chain requires). A reader keeping only the last seq it saw therefore misses nothing.
 * - Pruned entries (retention) are simply absent: the read continues after the gap.
 * - Events come out as their reader may see them: a source is bound to one grant (the caller of
 *   an export or stream, a sink's recorded grant, like a webhook subscription's) and redacts what
 *   is above its TLP clearance, so no delivery path needs a rule of its own.
 */
export interface AuditSource<E extends DeliverableAuditEvent = DeliverableAuditEvent> {
  after(organizationId: string, seq: number, limit: number): Promise<readonly E[]>;
}

/**
 * Where a sink keeps how far it delivered, per sink and organization. `get` answers 0 for a
 * sink that never delivered (every seq is above 0). `set` is only called with ascending values,
 * once what they cover was handed to the receiver; it resolves once the value is durable.
 */
export interface DeliveryCursorStore {
  get(sinkId: string, organizationId: string): Promise<number>;
  set(sinkId: string, organizationId: string, seq: number): Promise<void>;
}

/** A cursor store in this process's memory: for tests and for a host that replays from 0 on start. */
export function createMemoryCursorStore(): DeliveryCursorStore & { snapshot(): ReadonlyMap<string, number> } {
  const cursors = new Map<string, number>();
  const keyOf = (sinkId: string, organizationId: string) => `${sinkId}\u0000${organizationId}`;
  return {
    async get(sinkId, organizationId) {
      return cursors.get(keyOf(sinkId, organizationId)) ?? 0;
    },
    async set(sinkId, organizationId, seq) {
      cursors.set(keyOf(sinkId, organizationId), seq);
    },
    snapshot: () => new Map(cursors),
  };
}
