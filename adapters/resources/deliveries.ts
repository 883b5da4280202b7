/**
 * The port's DeliveryRepository: the declared deliveries and attempts (webhook-deliveries.ts,
 * webhook-attempts.ts) plus the dispatcher's queue, the outbox's honestly special statements,
 * each written once for both dialects: claiming events to fan out, claiming due deliveries, and
 * the retention purge. None of those is scoped by organization: the dispatcher serves every tenant.
 *
 * A claim is one UPDATE of the rows its inner SELECT picks. On PostgreSQL that SELECT locks them
 * FOR UPDATE SKIP LOCKED: a second dispatcher passes over what the first holds instead of waiting
 * for it, and once the first commits the rows no longer qualify (dispatched, or leased), so no row
 * is handed out twice. On SQLite units of work are serialised in the process and BEGIN IMMEDIATE
 * holds the write lock across processes, so no two claims ever see the same row as free.
 */
import type { DomainEvent } from "../../core/events/types.js";
import type { DeliveryRepository } from "../../core/ports/storage.js";
import type { Delivery, DeliveryAttempt } from "../../core/webhooks/types.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { Resource } from "../declare/resource.js";
import { decodeValue, recordOf } from "../declare/rows.js";
import { pageLimit } from "../shared/case-filter.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";
import { toIsoTimestamp } from "../shared/values.js";
import type { TimestampValue } from "../shared/values.js";
import type { GroupItems } from "../shared/group-items.js";
import type { StoredEvent } from "./events.js";
import { eventWithItems } from "./events.js";
import { eventItemsCodec, eventResource } from "./events.js";
import { expandEvent } from "../../core/log/groups.js";
import type { AttemptFilters } from "./webhook-attempts.js";
import { attemptsOf } from "./webhook-attempts.js";
import type { DeliveryFilters } from "./webhook-deliveries.js";
import { deliveryResource } from "./webhook-deliveries.js";

const columns = (resource: Resource): string => resource.fields.map((f) => f.name).join(", ");

/** An event's columns but a group's items, which a claim reads only for a group it expands (they can run to megabytes). */
const claimedEventColumns = eventResource.fields.filter((f) => f.key !== "items" && f.key !== "dispatchedAt").map((f) => f.name).join(", ");
const eventItemsColumn = eventResource.byKey.get("items")!.column;

/** Built once per dialect. Every mark is its own parameter, so `?` and `$n` bind the same list. */
const claimSqlFor = oncePerDialect((dialect: Dialect) => {
  const p = dialect.param;
  return {
    // events_undispatched_idx holds exactly the rows this walks, in id order. The claimed ids are
    // a MATERIALIZED CTE, never `IN (SELECT … LIMIT … SKIP LOCKED)`: PostgreSQL may run such a
    // subquery more than once in one UPDATE (a plan that rescans it), each run skipping rows the
    // last one locked, so one claim took more than `limit` rows. Parameters in textual order.
    claimEvents:
      `WITH claimed AS MATERIALIZED (SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY id LIMIT ${p(1)}${dialect.skipLocked})` +
      ` UPDATE events SET dispatched_at = ${p(2)} WHERE id IN (SELECT id FROM claimed) RETURNING ${claimedEventColumns}, CASE WHEN items IS NULL THEN 0 ELSE 1 END AS grouped`,
    groupItems: `SELECT items FROM events WHERE id = ${p(1)}`,
    claimDue:
      `WITH claimed AS MATERIALIZED (SELECT id FROM webhook_deliveries` +
      ` WHERE status = 'pending' AND next_attempt_at <= ${p(1)} AND (lease_until IS NULL OR lease_until <= ${p(2)})` +
      ` ORDER BY next_attempt_at, id LIMIT ${p(3)}${dialect.skipLocked})` +
      ` UPDATE webhook_deliveries SET lease_until = ${p(4)} WHERE id IN (SELECT id FROM claimed) RETURNING ${columns(deliveryResource)}`,
    purgeable: `SELECT id FROM webhook_deliveries WHERE completed_at < ${p(1)} AND status <> 'pending' ORDER BY completed_at LIMIT ${p(2)}${dialect.skipLocked}`,
    // webhook_deliveries_status_next_attempt_at_idx and events_undispatched_idx answer these.
    pendingCount: `SELECT count(*) AS pending FROM webhook_deliveries WHERE status = 'pending'`,
    oldestUndispatched: `SELECT occurred_at FROM events WHERE dispatched_at IS NULL ORDER BY id LIMIT 1`,
    purgeAttempts: `DELETE FROM webhook_attempts WHERE ${dialect.anyOf("delivery_id", p(1))}`,
    purgeDeliveries: `DELETE FROM webhook_deliveries WHERE ${dialect.anyOf("id", p(1))}`,
  };
});

const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byDueThenId = (a: Delivery, b: Delivery): number =>
  a.nextAttemptAt! < b.nextAttemptAt! ? -1 : a.nextAttemptAt! > b.nextAttemptAt! ? 1 : byId(a, b);

export function deliveryRepository(
  deliveries: DeclaredRepository<Delivery, DeliveryFilters>,
  attempts: DeclaredRepository<DeliveryAttempt, AttemptFilters>,
  groups: GroupItems,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
): DeliveryRepository {
  const { writing } = unitGuards(unit);
  const sql = claimSqlFor(dialect);
  return {
    async insertMany(records) {
      // A second delivery of an event to a subscription clashes with the unique key and is skipped.
      await deliveries.insertMany(records);
    },
    update: (delivery) => deliveries.update(delivery),
    findById: (organizationId, id) => deliveries.findById(organizationId, id),
    list: (organizationId, webhookId, { status, eventName }, page) =>
      deliveries.list(organizationId, { webhookId, status, eventName }, { limit: pageLimit(page), order: "desc", after: page.beforeId }),
    insertAttempt: (attempt) => attempts.insert(attempt),
    attemptsOf: attemptsOf(dialect, executor, unit),
    async claimEvents(limit, now, expandGroup) {
      writing();
      const count = pageLimit({ limit });
      if (count === 0) return [];
      const rows = await executor.all(sql.claimEvents, [count, toIsoTimestamp(now)]);
      // RETURNING promises no order: oldest first, as the port says; a group event is one event per record.
      const events: DomainEvent[] = [];
      const claimed = rows.map((row) => ({ event: recordOf<StoredEvent>(eventResource, row), grouped: Number(row.grouped) === 1 })).sort((a, b) => byId(a.event, b.event));
      for (const { event, grouped } of claimed) {
        if (!grouped) {
          events.push(...expandEvent(eventWithItems(event, null)));
          continue;
        }
        if (expandGroup !== undefined && !(await expandGroup(event.organizationId, event.name))) continue;
        // Read (and decoded) only now that the group is expanded: a claim passes over the others' items untouched.
        const [found] = await executor.all(sql.groupItems, [event.id]);
        const stored = decodeValue(eventItemsColumn, found?.items);
        events.push(...expandEvent(eventWithItems(event, await groups.load("events", event.organizationId, event.id, stored, eventItemsCodec(dialect)))));
      }
      return events;
    },
    async claimDue(limit, now, leaseUntil) {
      writing();
      const count = pageLimit({ limit });
      if (count === 0) return [];
      const at = toIsoTimestamp(now);
      const rows = await executor.all(sql.claimDue, [at, at, count, toIsoTimestamp(leaseUntil)]);
      return rows.map((row) => recordOf<Delivery>(deliveryResource, row)).sort(byDueThenId);
    },
    async backlog() {
      const [pending] = await executor.all(sql.pendingCount, []);
      const [oldest] = await executor.all(sql.oldestUndispatched, []);
      return {
        // PostgreSQL's count is a bigint, handed back as text.
        pendingDeliveries: Number(pending?.pending ?? 0),
        oldestUndispatchedEventAt: oldest ? toIsoTimestamp(oldest.occurred_at as TimestampValue) : null,
      };
    },
    async purgeCompletedBefore(before, limit) {
      writing();
      const count = pageLimit({ limit });
      if (count === 0) return 0;
      const ids = (await executor.all(sql.purgeable, [toIsoTimestamp(before), count])).map((row) => row.id as string);
      if (ids.length === 0) return 0;
      const list = dialect.list(ids);
      await executor.run(sql.purgeAttempts, [list]);
      return executor.run(sql.purgeDeliveries, [list]);
    },
  };
}
