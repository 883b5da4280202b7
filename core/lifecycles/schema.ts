import { z } from "zod";
import { listResponseSchema, pageQueryShape, timestampSchema, trimmedText } from "../schema/common.js";
import { fieldGatePrefix, mandatoryTasksGate, reasonGate } from "./gates.js";
import { lifecycleEntities, statusCategories, transitionRoles } from "./types.js";

export const statusKeySchema = z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, "must be lower-case letters, digits and _ (up to 63), starting with a letter");

const gateSchema = z
  .string()
  .max(200)
  .meta({ description: `A gate: \`${reasonGate}\`, \`${mandatoryTasksGate}\` (cases), or \`${fieldGatePrefix}<dotted record field path>\` (e.g. \`${fieldGatePrefix}customFields.rootCause\`)` });

export const lifecycleStatusSchema = z
  .strictObject({
    key: statusKeySchema,
    label: trimmedText(100),
    category: z.enum(statusCategories).meta({ description: "What casekit itself reads: SLA clocks, metrics and closure rules key off the category, never the key" }),
    final: z.boolean().meta({ description: "The work is over: a final case or alert takes no change but lifecycle moves until reopened; a final task no longer holds its case open" }),
    color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, "must be a #rrggbb colour")
      .nullable()
      .default(null),
  })
  .meta({ id: "LifecycleStatus" });

export const lifecycleTransitionSchema = z
  .strictObject({
    from: z.array(statusKeySchema).min(1).max(100),
    to: statusKeySchema,
    roles: z.array(z.enum(transitionRoles)).min(1).max(4).optional().meta({ description: "Who may take it (any of); `assignee` is the record's assignee. Absent: whoever may change the record" }),
    requires: z.array(gateSchema).max(20).optional().meta({ description: "Gates that must all hold" }),
  })
  .meta({ id: "LifecycleTransition" });

export const lifecyclePublishSchema = z
  .strictObject({
    statuses: z.array(lifecycleStatusSchema).min(1).max(50),
    transitions: z.array(lifecycleTransitionSchema).max(500),
    mapping: z
      .record(statusKeySchema, statusKeySchema)
      .default({})
      .meta({ description: "For each status of the current version that the new one drops: the status its records count as from now on" }),
  })
  .meta({ id: "LifecyclePublish" });

export const lifecycleEntitySchema = z.enum(lifecycleEntities);

/** The shape of a lifecycle's key (the path of /lifecycles/case/named/{key} is checked against it too). */
export const lifecycleKeyPattern = /^[a-z0-9][a-z0-9_-]{0,99}$/;

/** A lifecycle's key: `default`, or a named case lifecycle's (what a case type's `lifecycle` names). */
export const lifecycleKeySchema = z
  .string()
  .regex(lifecycleKeyPattern, "must be 1 to 100 lower-case letters, digits, _ or -, starting with a letter or digit")
  .meta({ description: "`default` (the lifecycle /lifecycles/{entity} reads), or a named case lifecycle's key" });

export const lifecycleSchema = z
  .object({
    id: z.string().nullable().meta({ description: "The published version's id; null for the built-in default" }),
    entity: lifecycleEntitySchema,
    key: z.string().meta({ description: "`default`, or the key of a named case lifecycle (GET /lifecycles/case/named/{key})" }),
    version: z.int().meta({ description: "0 for the built-in default, then 1, 2, … per publication of this key" }),
    statuses: z.array(lifecycleStatusSchema),
    transitions: z.array(lifecycleTransitionSchema),
    mapping: z.record(z.string(), z.string()).meta({ description: "How the version before's statuses map onto this one's" }),
    createdAt: timestampSchema.nullable(),
    createdBy: z.string().nullable(),
  })
  .meta({ id: "Lifecycle" });

export const lifecycleVersionListSchema = listResponseSchema(lifecycleSchema).meta({ id: "LifecycleVersionList" });

export const caseLifecycleListSchema = z
  .object({
    data: z.array(lifecycleSchema).meta({ description: "The default lifecycle first, then the named ones by key (at most 50: one page)" }),
    nextCursor: z.null().meta({ description: "Always null: the list is one page" }),
  })
  .meta({ id: "CaseLifecycleList" });

export const lifecycleVersionQuerySchema = z.strictObject({ ...pageQueryShape });

export const transitionOptionSchema = z
  .object({
    to: z.string(),
    label: z.string(),
    category: z.enum(statusCategories),
    final: z.boolean(),
    unmet: z.array(z.string()).meta({ description: "Gates that do not hold now; empty when the transition can be taken as it is" }),
  })
  .meta({ id: "TransitionOption" });

export const transitionListSchema = z
  .object({ recordId: z.string(), from: z.string().meta({ description: "The record's status now" }), data: z.array(transitionOptionSchema) })
  .meta({ id: "TransitionList" });

export const statusChangeSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    entity: lifecycleEntitySchema,
    recordId: z.string(),
    from: z.string().nullable().meta({ description: "null for the record's first status" }),
    to: z.string(),
    fromCategory: z.enum(statusCategories).nullable(),
    toCategory: z.enum(statusCategories).nullable(),
    actorUserId: z.string().nullable(),
    actorKeyId: z.string().nullable(),
    at: timestampSchema,
    reason: z.string().nullable(),
  })
  .meta({ id: "StatusChange" });

export const statusHistorySchema = listResponseSchema(statusChangeSchema).meta({ id: "StatusHistory" });

export const statusHistoryQuerySchema = z.strictObject({ ...pageQueryShape });
