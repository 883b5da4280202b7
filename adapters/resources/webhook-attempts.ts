/**
 * Delivery attempts, declared once: both dialects' tables, rows and SQL come from this
 * declaration. A delivery's history is read in attempt order, written once for both dialects.
 */
import type { DeliveryRepository } from "../../core/ports/storage.js";
import type { DeliveryAttempt } from "../../core/webhooks/types.js";
import { attemptErrorClasses } from "../../core/webhooks/types.js";
import { enumOf, float, id, int, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { recordOf } from "../declare/rows.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";

export const attemptResource = defineResource({
  table: "webhook_attempts",
  noun: "A delivery attempt",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    deliveryId: text({ references: { table: "webhook_deliveries", column: "id" } }),
    webhookId: text(),
    attempt: int(),
    requestedAt: timestamp(),
    durationMs: float(),
    responseStatus: int({ nullable: true }),
    /** At most 4 KiB of the receiver's answer. */
    responseBody: text({ nullable: true }),
    errorClass: enumOf(attemptErrorClasses, { nullable: true }),
    nextAttemptAt: timestamp({ nullable: true }),
  },
  indexes: [{ name: "webhook_attempts_delivery_id_idx", columns: ["deliveryId", "attempt"] }],
  // A deleted subscription's attempts go with it.
  filters: { webhookId: { kind: "equals", column: "webhookId" } },
});

export type AttemptFilters = FilterValues<typeof attemptResource>;

/** Compile-time proof that the declaration stores exactly the core's DeliveryAttempt. */
export const _attemptRecordMatches: Same<RecordOf<typeof attemptResource>, DeliveryAttempt> = true;

const attemptsOfSqlFor = oncePerDialect(
  (dialect: Dialect) =>
    `SELECT ${attemptResource.fields.map((f) => f.name).join(", ")} FROM webhook_attempts WHERE organization_id = ${dialect.param(1)} AND ${dialect.anyOf("delivery_id", dialect.param(2))} ORDER BY attempt, id`,
);

/** The port's attemptsOf: the attempts of the organization's deliveries among the ids, in attempt order. */
export function attemptsOf(dialect: Dialect, executor: Executor, unit: UnitState): DeliveryRepository["attemptsOf"] {
  const { reading } = unitGuards(unit);
  const text = attemptsOfSqlFor(dialect);
  return async (organizationId, deliveryIds) => {
    reading();
    if (deliveryIds.length === 0) return [];
    return (await executor.all(text, [organizationId, dialect.list(deliveryIds)])).map((row) => recordOf<DeliveryAttempt>(attemptResource, row));
  };
}
