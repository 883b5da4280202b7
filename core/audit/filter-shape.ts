import { z } from "zod";
import { anyOf, boundedString, timestampSchema } from "../schema/common.js";
import { auditActorTypes, auditOutcomes } from "./types.js";

/** The filters of every audit events read (list, a case's trail, the export). */
export const auditFilterShape = {
  actorId: boundedString(64).optional().meta({ description: "A user id or a key id (a key's events, or everything a user did, by key or not)" }),
  actorType: anyOf(z.enum(auditActorTypes)).optional(),
  action: anyOf(boundedString(100, 1)).optional().meta({ description: "`<resource>.<verb>`, e.g. `case.updated`; repeat for any of several" }),
  targetType: anyOf(boundedString(64, 1)).optional().meta({ description: "The kind of record, e.g. `case`, `task`, `key`" }),
  targetId: boundedString(64).optional(),
  outcome: z.enum(auditOutcomes).optional(),
  from: timestampSchema.optional().meta({ description: "Events at or after this time" }),
  to: timestampSchema.optional().meta({ description: "Events before this time" }),
  q: boundedString(200, 1).optional().meta({ description: "A phrase found (ignoring case) in the action, the target's type or the target's id" }),
};
