import { and, asc, desc, eq, inArray, isNull, lt, lte, ne, or } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { DeliveryRepository } from "../../core/ports/storage.js";
import type { Delivery } from "../../core/webhooks/types.js";
import { pageLimit } from "../shared/case-filter.js";
import type { EventRow } from "../shared/rows.js";
import { eventFromRow } from "../shared/rows.js";
import { toIsoTimestamp } from "../shared/values.js";
import type { AttemptRow, DeliveryRow } from "../shared/webhook-rows.js";
import { attemptFromRow, attemptToRow, deliveryFromRow, deliveryMutableColumns, deliveryToRow, eventDispatchColumns } from "../shared/webhook-rows.js";
import { guard } from "./errors.js";
import type { UnitState } from "./repositories.js";
import { rowSelection, rowValues } from "./rows.js";
import { events, webhookAttempts, webhookDeliveries } from "./schema.js";
import { unitGuards } from "../shared/unit-state.js";

/** Compile-time proof that the tables' columns are exactly the shared rows' keys. */
type Columns<T extends { _: { columns: Record<string, { _: { name: string } }> } }> = { [K in keyof T["_"]["columns"]]: T["_"]["columns"][K]["_"]["name"] }[keyof T["_"]["columns"]];
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
export const _deliveryColumnsMatch: [Same<Columns<typeof webhookDeliveries>, keyof DeliveryRow>, Same<Columns<typeof webhookAttempts>, keyof AttemptRow>] = [true, true];

const deliveryRow = rowSelection(webhookDeliveries);
const attemptRow = rowSelection(webhookAttempts);
const eventRow = rowSelection(events, eventDispatchColumns);
const toDelivery = (row: Record<string, unknown>) => deliveryFromRow(row as unknown as DeliveryRow);

const byDueThenId = (a: Delivery, b: Delivery): number =>
  a.nextAttemptAt! < b.nextAttemptAt! ? -1 : a.nextAttemptAt! > b.nextAttemptAt! ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * The PostgreSQL DeliveryRepository of one unit of work. Claims lock their rows with
 * `FOR UPDATE SKIP LOCKED` inside the caller's transaction: a second dispatcher skips what the
 * first holds instead of waiting for it, and once the first commits the rows no longer qualify
 * (dispatched, or leased), so no row is ever handed out twice.
 */
export function createDeliveryRepository(db: NodePgDatabase, unit: UnitState): DeliveryRepository {
  const { reading, writing } = unitGuards(unit);

  return {
    async claimEvents(limit, now) {
      writing();
      const count = pageLimit({ limit });
      if (count === 0) return [];
      const next = db
        .select({ id: events.id })
        .from(events)
        .where(isNull(events.dispatchedAt))
        .orderBy(asc(events.id))
        .limit(count)
        .for("update", { skipLocked: true });
      const rows = await guard(db.update(events).set({ dispatchedAt: toIsoTimestamp(now) }).where(inArray(events.id, next)).returning(eventRow));
      // RETURNING promises no order: oldest first, as the port says.
      return rows.map((row) => eventFromRow(row as unknown as EventRow)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async insertMany(deliveries) {
      writing();
      if (deliveries.length === 0) return;
      await guard(
        db
          .insert(webhookDeliveries)
          .values(deliveries.map((d) => rowValues(webhookDeliveries, deliveryToRow(d))))
          .onConflictDoNothing({ target: [webhookDeliveries.webhookId, webhookDeliveries.eventId] }),
      );
    },
    async claimDue(limit, now, leaseUntil) {
      writing();
      const count = pageLimit({ limit });
      if (count === 0) return [];
      const at = toIsoTimestamp(now);
      const due = db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.status, "pending"),
            lte(webhookDeliveries.nextAttemptAt, at),
            or(isNull(webhookDeliveries.leaseUntil), lte(webhookDeliveries.leaseUntil, at)),
          ),
        )
        .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id))
        .limit(count)
        .for("update", { skipLocked: true });
      const rows = await guard(
        db.update(webhookDeliveries).set({ leaseUntil: toIsoTimestamp(leaseUntil) }).where(inArray(webhookDeliveries.id, due)).returning(deliveryRow),
      );
      return rows.map(toDelivery).sort(byDueThenId);
    },
    async update(delivery) {
      writing();
      const row = deliveryToRow(delivery);
      const changes = Object.fromEntries(deliveryMutableColumns.map((c) => [c, row[c]]));
      const written = await guard(
        db
          .update(webhookDeliveries)
          .set(rowValues(webhookDeliveries, changes))
          .where(and(eq(webhookDeliveries.organizationId, delivery.organizationId), eq(webhookDeliveries.id, delivery.id)))
          .returning({ id: webhookDeliveries.id }),
      );
      return written.length > 0;
    },
    async findById(organizationId, id) {
      reading();
      const rows = await guard(
        db
          .select(deliveryRow)
          .from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.id, id)))
          .limit(1),
      );
      return rows[0] ? toDelivery(rows[0]) : null;
    },
    async list(organizationId, webhookId, filter, page) {
      reading();
      const limit = pageLimit(page);
      if (limit === 0 || filter.status?.length === 0 || filter.eventName?.length === 0) return [];
      const where = [eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.webhookId, webhookId)];
      if (filter.status) where.push(inArray(webhookDeliveries.status, filter.status));
      if (filter.eventName) where.push(inArray(webhookDeliveries.eventName, filter.eventName));
      if (page.beforeId !== undefined) where.push(lt(webhookDeliveries.id, page.beforeId));
      const rows = await guard(
        db
          .select(deliveryRow)
          .from(webhookDeliveries)
          .where(and(...where))
          .orderBy(desc(webhookDeliveries.id))
          .limit(limit),
      );
      return rows.map(toDelivery);
    },
    async insertAttempt(attempt) {
      writing();
      await guard(db.insert(webhookAttempts).values(rowValues(webhookAttempts, attemptToRow(attempt))));
    },
    async attemptsOf(organizationId, deliveryIds) {
      reading();
      if (deliveryIds.length === 0) return [];
      const rows = await guard(
        db
          .select(attemptRow)
          .from(webhookAttempts)
          .where(and(eq(webhookAttempts.organizationId, organizationId), inArray(webhookAttempts.deliveryId, [...deliveryIds])))
          .orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.id)),
      );
      return rows.map((row) => attemptFromRow(row as unknown as AttemptRow));
    },
    async purgeCompletedBefore(before, limit) {
      writing();
      const count = pageLimit({ limit });
      if (count === 0) return 0;
      const finished = await guard(
        db
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(and(lt(webhookDeliveries.completedAt, toIsoTimestamp(before)), ne(webhookDeliveries.status, "pending")))
          .orderBy(asc(webhookDeliveries.completedAt))
          .limit(count)
          .for("update", { skipLocked: true }),
      );
      if (finished.length === 0) return 0;
      const ids = finished.map((row) => row.id);
      await guard(db.delete(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids)));
      const deleted = await guard(db.delete(webhookDeliveries).where(inArray(webhookDeliveries.id, ids)).returning({ id: webhookDeliveries.id }));
      return deleted.length;
    },
  };
}
