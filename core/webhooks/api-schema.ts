import { z } from "zod";
import { anyOf, boundedString, listResponseSchema, pageQueryShape } from "../schema/common.js";
import { attemptErrorClasses, deliveryStatuses } from "./types.js";

/** What schema.ts leaves out: the list queries and the delivery history as the API shows it. */

export const webhookListQuerySchema = z.strictObject({ ...pageQueryShape });

export const deliveryListQuerySchema = z.strictObject({
  ...pageQueryShape,
  status: anyOf(z.enum(deliveryStatuses)).optional(),
  eventName: anyOf(boundedString(100).regex(/^[a-z][a-z_]*\.[a-z][a-z_]*$/, "must be an event name like case.created")).optional(),
});

export const deliveryAttemptSchema = z
  .object({
    id: z.string(),
    attempt: z.int().meta({ description: "1 for the first attempt, 2 for the first retry …" }),
    requestedAt: z.string().meta({ format: "date-time" }),
    durationMs: z.number(),
    responseStatus: z.int().nullable().meta({ description: "The receiver's HTTP status; null when no response came" }),
    responseBody: z.string().nullable().meta({ description: "At most the first 4 KiB of the receiver's answer" }),
    errorClass: z.enum(attemptErrorClasses).nullable().meta({ description: "Why the attempt failed: timeout, network, blocked (SSRF policy) or http (a non-2xx status); null on success" }),
    nextAttemptAt: z.string().nullable().meta({ description: "When the retry after this attempt was scheduled; null when none was" }),
  })
  .meta({ id: "WebhookDeliveryAttempt" });

export const deliverySchema = z
  .object({
    id: z.string().meta({ description: "The delivery's id, sent as `webhook-id` with every attempt (receivers deduplicate on it)" }),
    organizationId: z.string(),
    webhookId: z.string(),
    eventId: z.string(),
    eventName: z.string(),
    status: z.enum(deliveryStatuses),
    attemptCount: z.int(),
    nextAttemptAt: z.string().nullable().meta({ description: "When the next attempt is due (pending deliveries)" }),
    lastResponseStatus: z.int().nullable(),
    lastErrorClass: z.enum(attemptErrorClasses).nullable(),
    createdAt: z.string().meta({ format: "date-time" }),
    updatedAt: z.string().meta({ format: "date-time" }),
    completedAt: z.string().nullable().meta({ description: "When it was delivered or given up" }),
    attempts: z.array(deliveryAttemptSchema).meta({ description: "Every attempt so far, in order" }),
  })
  .meta({ id: "WebhookDelivery" });

export const deliveryListSchema = listResponseSchema(deliverySchema).meta({ id: "WebhookDeliveryList" });

export type DeliveryView = z.output<typeof deliverySchema>;
