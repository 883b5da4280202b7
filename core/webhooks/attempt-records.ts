import type { Storage, UnitOfWork } from "../ports/storage.js";
import type { AttemptOutcome } from "./schedule.js";
import type { Delivery, DeliveryAttempt, StoredWebhook } from "./types.js";

/** What one attempt (or a delivery settled without one) leaves to record. */
export interface AttemptResult {
  delivery: Delivery;
  outcome: AttemptOutcome;
  now: Date;
  /** The attempt's history row; null when the delivery was settled without sending. */
  record: DeliveryAttempt | null;
  /** The subscription to disable, and why (410 Gone, its key gone for good). */
  disabling?: { webhook: StoredWebhook; reason: string };
}

/** Runs a write, retrying it through a passing database error (the host's backoff, or back to back). */
export type RetryWrite = (write: () => Promise<void>) => Promise<void>;

/**
 * Records attempts in batches: results are queued as attempts finish, and whenever no write is
 * running every queued result is written in ONE unit of work, so a busy dispatcher pays one unit
 * per batch, not per delivery, and an idle one records at once (no timer: the core keeps none).
 *
 * An attempt has happened, so its record must not be lost to a passing database error (the
 * delivery would be sent again): each unit is retried (`retry`). Should a unit still fail, its
 * results are written one unit each, so one record that cannot be written never takes the others
 * with it; the first failure is then reported by `settled`. Until recorded, a delivery keeps its
 * lease: a crash before the write leaves it to be sent again (at-least-once, same webhook-id).
 */
export function createAttemptRecorder(storage: Storage, retry: RetryWrite) {
  const write = (results: readonly AttemptResult[]) =>
    storage.transaction(async (tx) => {
      for (const result of results) await recordIn(tx, result);
    });

  async function writeBatch(results: readonly AttemptResult[]): Promise<void> {
    try {
      await retry(() => write(results));
    } catch (error) {
      if (results.length === 1) throw error;
      let first: { error: unknown } | undefined;
      for (const result of results) {
        try {
          await write([result]);
        } catch (alone) {
          first ??= { error: alone };
        }
      }
      if (first) throw first.error;
    }
  }

  /** One batch of deliveries' results: `add` as attempts finish, then await `settled`. */
  return function batch() {
    const queued: AttemptResult[] = [];
    let writing: Promise<void> | null = null;
    let failure: { error: unknown } | undefined;

    const drain = async () => {
      while (queued.length > 0) {
        try {
          await writeBatch(queued.splice(0));
        } catch (error) {
          failure ??= { error };
        }
      }
      writing = null;
    };

    return {
      add(result: AttemptResult): void {
        queued.push(result);
        writing ??= drain();
      },
      /** Resolves once everything added is written; rejects with the first write that failed. */
      async settled(): Promise<void> {
        await writing;
        if (failure) throw failure.error;
      },
    };
  };
}

/** One result's writes: the attempt row, the delivery's next state, the subscription disabled. A delivery deleted meanwhile (its subscription was) has nothing left to record. */
async function recordIn(tx: UnitOfWork, { delivery, outcome, now, record, disabling }: AttemptResult): Promise<void> {
  const current = await tx.deliveries.findById(delivery.organizationId, delivery.id);
  if (!current) return;
  if (record) await tx.deliveries.insertAttempt(record);
  const done = outcome.kind !== "retry";
  await tx.deliveries.update({
    ...current,
    attempts: current.attempts + (record ? 1 : 0),
    status: outcome.kind === "delivered" ? "delivered" : outcome.kind === "retry" ? "pending" : "failed",
    nextAttemptAt: record?.nextAttemptAt ?? null,
    leaseUntil: null,
    lastResponseStatus: record?.responseStatus ?? current.lastResponseStatus,
    lastErrorClass: record ? record.errorClass : current.lastErrorClass,
    updatedAt: now.toISOString(),
    completedAt: done ? now.toISOString() : null,
  });
  if (disabling) await disable(tx, disabling.webhook, now, disabling.reason);
}

async function disable(tx: UnitOfWork, webhook: StoredWebhook, now: Date, reason: string): Promise<void> {
  const current = await tx.webhooks.findById(webhook.organizationId, webhook.id);
  if (current && current.status === "active") await tx.webhooks.update({ ...current, status: "disabled", disabledReason: reason, updatedAt: now.toISOString() });
}
