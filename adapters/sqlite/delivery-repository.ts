import type { DomainEvent } from "../../core/events/types.js";
import type { DeliveryRepository } from "../../core/ports/storage.js";
import type { Delivery } from "../../core/webhooks/types.js";
import { pageLimit } from "../shared/case-filter.js";
import { toIsoTimestamp } from "../shared/values.js";
import type { EventRow } from "../shared/rows.js";
import { eventColumns, eventFromRow } from "../shared/rows.js";
import type { AttemptRow, DeliveryRow } from "../shared/webhook-rows.js";
import { attemptColumns, attemptFromRow, attemptToRow, deliveryColumns, deliveryFromRow, deliveryMutableColumns, deliveryToRow } from "../shared/webhook-rows.js";
import { translateError } from "./errors.js";
import { Conditions } from "./list-query.js";
import type { UnitState } from "./repositories.js";
import type { Statements } from "./statements.js";
import { unitGuards } from "../shared/unit-state.js";

const deliveryList = deliveryColumns.join(", ");
const attemptList = attemptColumns.join(", ");
const named = (columns: readonly string[]) => columns.map((c) => `@${c}`).join(", ");

/**
 * Claims are single UPDATE … RETURNING statements. Units of work are serialised in this process
 * and BEGIN IMMEDIATE holds SQLite's write lock across processes, so no two claims ever see the
 * same row as free.
 */
const sql = {
  claimEvents: `UPDATE events SET dispatched_at = ? WHERE id IN (SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY id LIMIT ?) RETURNING ${eventColumns.join(", ")}`,
  insert: `INSERT INTO webhook_deliveries (${deliveryList}) VALUES (${named(deliveryColumns)}) ON CONFLICT (webhook_id, event_id) DO NOTHING`,
  claimDue: `UPDATE webhook_deliveries SET lease_until = ? WHERE id IN (
    SELECT id FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
    ORDER BY next_attempt_at, id LIMIT ?
  ) RETURNING ${deliveryList}`,
  update: `UPDATE webhook_deliveries SET ${deliveryMutableColumns.map((c) => `${c} = @${c}`).join(", ")} WHERE organization_id = @organization_id AND id = @id`,
  byId: `SELECT ${deliveryList} FROM webhook_deliveries WHERE organization_id = ? AND id = ?`,
  select: `SELECT ${deliveryList} FROM webhook_deliveries`,
  insertAttempt: `INSERT INTO webhook_attempts (${attemptList}) VALUES (${named(attemptColumns)})`,
  attemptsOf: `SELECT ${attemptList} FROM webhook_attempts WHERE organization_id = ? AND delivery_id IN (SELECT value FROM json_each(?)) ORDER BY attempt, id`,
  purgeable: "SELECT id FROM webhook_deliveries WHERE completed_at < ? AND status <> 'pending' ORDER BY completed_at LIMIT ?",
  purgeAttempts: "DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?))",
  purgeDeliveries: "DELETE FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))",
} as const;

const byDueThenId = (a: Delivery, b: Delivery): number =>
  a.nextAttemptAt! < b.nextAttemptAt! ? -1 : a.nextAttemptAt! > b.nextAttemptAt! ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The SQLite DeliveryRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createDeliveryRepository(statements: Statements, unit: UnitState): DeliveryRepository {
  const { reading, writing } = unitGuards(unit);
  const run = (text: string, ...params: unknown[]): number => {
    try {
      return statements.get(text).run(...params).changes;
    } catch (error) {
      throw translateError(error);
    }
  };

  return {
    async claimEvents(limit, now): Promise<DomainEvent[]> {
      writing();
      const count = pageLimit({ limit });
      if (count === 0) return [];
      const rows = statements.get(sql.claimEvents).all(toIsoTimestamp(now), count) as EventRow[];
      // RETURNING promises no order: oldest first, as the port says.
      return rows.map(eventFromRow).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async insertMany(deliveries) {
      writing();
      for (const delivery of deliveries) run(sql.insert, deliveryToRow(delivery));
    },
    async claimDue(limit, now, leaseUntil) {
      writing();
      const count = pageLimit({ limit });
      if (count === 0) return [];
      const rows = statements.get(sql.claimDue).all(toIsoTimestamp(leaseUntil), toIsoTimestamp(now), toIsoTimestamp(now), count) as DeliveryRow[];
      return rows.map(deliveryFromRow).sort(byDueThenId);
    },
    async update(delivery) {
      writing();
      const row = deliveryToRow(delivery);
      const values = Object.fromEntries(["id", "organization_id", ...deliveryMutableColumns].map((c) => [c, row[c as keyof typeof row]]));
      return run(sql.update, values) > 0;
    },
    async findById(organizationId, id) {
      reading();
      const row = statements.get(sql.byId).get(organizationId, id) as DeliveryRow | undefined;
      return row ? deliveryFromRow(row) : null;
    },
    async list(organizationId, webhookId, filter, page) {
      reading();
      const limit = pageLimit(page);
      if (limit === 0 || filter.status?.length === 0 || filter.eventName?.length === 0) return [];
      const query = new Conditions(organizationId)
        .add("webhook_id = ?", webhookId)
        .anyOf("status", filter.status)
        .anyOf("event_name", filter.eventName)
        .page(sql.select, limit, page.beforeId);
      return (statements.getDynamic(query.text).all(...query.params) as DeliveryRow[]).map(deliveryFromRow);
    },
    async insertAttempt(attempt) {
      writing();
      run(sql.insertAttempt, attemptToRow(attempt));
    },
    async attemptsOf(organizationId, deliveryIds) {
      reading();
      if (deliveryIds.length === 0) return [];
      return (statements.get(sql.attemptsOf).all(organizationId, JSON.stringify(deliveryIds)) as AttemptRow[]).map(attemptFromRow);
    },
    async purgeCompletedBefore(before, limit) {
      writing();
      const count = pageLimit({ limit });
      if (count === 0) return 0;
      const ids = (statements.get(sql.purgeable).all(toIsoTimestamp(before), count) as { id: string }[]).map((row) => row.id);
      if (ids.length === 0) return 0;
      const list = JSON.stringify(ids);
      run(sql.purgeAttempts, list);
      return run(sql.purgeDeliveries, list);
    },
  };
}
