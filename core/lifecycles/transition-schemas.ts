/**
 * The body of POST /{cases,alerts,tasks}/{id}/transitions, per entity: `to`, `reason`, and
 * `fields`, the members the record's PATCH takes except its status (which `to` sets), so the
 * document says exactly which fields may change with a move.
 */
import { z } from "zod";
import { alertUpdateSchema } from "../alerts/schema.js";
import { caseUpdateSchema } from "../cases/schema.js";
import { trimmedText } from "../schema/common.js";
import { taskUpdateSchema } from "../tasks/schema.js";
import { statusKeySchema } from "./schema.js";

function transitionBody<S extends z.ZodRawShape>(id: string, update: { shape: S }, statusField: string) {
  const fields = Object.fromEntries(Object.entries(update.shape).filter(([name]) => name !== statusField)) as z.ZodRawShape;
  return z
    .strictObject({
      to: statusKeySchema.meta({ description: "The status to move to: a key of the organization's lifecycle" }),
      reason: trimmedText(2000).optional().meta({ description: "Why: kept in the status history; a transition that requires `reason` needs it" }),
      fields: z
        .strictObject(fields)
        .optional()
        .meta({ description: "Fields to change with the move, as the record's PATCH takes them (without the status): what a `field:` gate needs" }),
    })
    .meta({ id });
}

export const caseTransitionRequestSchema = transitionBody("CaseTransitionRequest", caseUpdateSchema, "statusValue");
export const alertTransitionRequestSchema = transitionBody("AlertTransitionRequest", alertUpdateSchema, "statusValue");
export const taskTransitionRequestSchema = transitionBody("TaskTransitionRequest", taskUpdateSchema, "status");
