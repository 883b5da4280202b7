/**
 * Webhook deliveries (one event for one subscription), declared once: both dialects' tables, rows
 * and SQL come from this declaration. The port's DeliveryRepository is in deliveries.ts.
 */
import type { Delivery } from "../../core/webhooks/types.js";
import { attemptErrorClasses, deliveryStatuses } from "../../core/webhooks/types.js";
import { enumOf, id, int, text, timestamp } from "../declare/columns.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";

export const deliveryResource = defineResource({
  table: "webhook_deliveries",
  noun: "A webhook delivery",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    webhookId: text({ references: { table: "webhooks", column: "id" } }),
    /**
     * The event delivered: an event row's id, or one record's event of a group row
     * (`<group id>.<position>`, core/log/groups.ts), which no foreign key can name.
     */
    eventId: text(),
    eventName: text(),
    status: enumOf(deliveryStatuses),
    attempts: int(),
    nextAttemptAt: timestamp({ nullable: true }),
    /** A dispatcher holds the delivery until then (claimDue); another may take it over after. */
    leaseUntil: timestamp({ nullable: true }),
    lastResponseStatus: int({ nullable: true }),
    lastErrorClass: enumOf(attemptErrorClasses, { nullable: true }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    completedAt: timestamp({ nullable: true }),
  },
  // The subscription, the event and the creation are set once, at insert.
  fixed: ["webhookId", "eventId", "eventName", "createdAt"],
  // One delivery per event and subscription: a fan-out run twice creates nothing new.
  unique: [{ name: "webhook_deliveries_webhook_id_event_id_unique", columns: ["webhookId", "eventId"], conflict: "The subscription already has a delivery of this event" }],
  indexes: [
    // claimDue: pending deliveries in due order.
    { name: "webhook_deliveries_status_next_attempt_at_idx", columns: ["status", "nextAttemptAt"] },
    // A subscription's delivery history, newest first.
    { name: "webhook_deliveries_organization_id_webhook_id_idx", columns: ["organizationId", "webhookId", "id"] },
    // Retention: finished deliveries by completion time.
    { name: "webhook_deliveries_completed_at_idx", columns: ["completedAt"] },
  ],
  filters: {
    webhookId: { kind: "equals", column: "webhookId" },
    status: { kind: "anyOf", column: "status" },
    eventName: { kind: "anyOf", column: "eventName" },
  },
});

export type DeliveryFilters = FilterValues<typeof deliveryResource>;

/** Compile-time proof that the declaration stores exactly the core's Delivery. */
export const _deliveryRecordMatches: Same<RecordOf<typeof deliveryResource>, Delivery> = true;
