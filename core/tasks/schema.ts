import { z } from "zod";
import { bulkRequestSchema, bulkResultSchema } from "../bulk/schema.js";
import { anyOf, boundedString, changeSchema, idSchema, jsonInt, listResponseSchema, pageQueryShape, queryInt, resourceMetaShape, timestampSchema, tlpSchema, trimmedText } from "../schema/common.js";
import type { IntReader } from "../schema/common.js";
import { statusKeySchema } from "../lifecycles/schema.js";
import { customFieldFilterValuesSchema, recordCustomFieldsSchema } from "../custom-fields/schema.js";

const titleSchema = trimmedText(500);
const descriptionSchema = boundedString(100_000);
const orderSchema = z.int().min(0).max(1_000_000_000).meta({ description: "Position among the case's tasks (ascending), for display" });
/** Stored and answered in canonical UTC form, so the answer equals what a later read returns. */
const dueDateSchema = timestampSchema.transform((value) => new Date(value).toISOString()).meta({ description: "ISO 8601 date-time; answered in UTC" });
const customFieldsSchema = recordCustomFieldsSchema("task");
const statusNote = `A status of the organization's task lifecycle (GET /lifecycles/task). Built-in: waiting → in_progress → completed | cancelled; waiting ↔ in_progress; completed → in_progress and cancelled → waiting reopen. A case cannot close while a mandatory task is in a status that is not final.`;

/** Create body (spec §2.3 task fields plus `order`). The case comes from the path. */
export const taskCreateSchema = z
  .strictObject({
    title: titleSchema,
    description: descriptionSchema.optional(),
    status: statusKeySchema.optional().meta({ description: `${statusNote} A new task starts in one of the new or in_progress category; by default the first of the new category (built-in: waiting).` }),
    assigneeId: idSchema("user").optional().meta({ description: "An active user of your organization" }),
    dueDate: dueDateSchema.optional(),
    mandatory: z.boolean().default(false).meta({ description: "A case cannot be closed while a mandatory task is open" }),
    tlp: tlpSchema.optional().meta({ description: "Defaults to the case's TLP; never above the caller's clearance" }),
    order: orderSchema.optional().meta({ description: "Defaults to after the case's last task" }),
    customFields: customFieldsSchema.default({}),
  })
  .meta({ id: "TaskCreate", examples: [{ title: "Reset the affected accounts' passwords", mandatory: true, dueDate: "2026-03-02T09:00:00Z" }] });

/** Every member a change may set; `null` clears an optional field. */
const changeShape = {
  title: titleSchema,
  description: descriptionSchema.nullable(),
  status: statusKeySchema.meta({ description: statusNote }),
  assigneeId: idSchema("user").nullable(),
  dueDate: dueDateSchema.nullable(),
  mandatory: z.boolean(),
  tlp: tlpSchema,
};

/** Only the fields to change. */
export const taskUpdateSchema = changeSchema({ ...changeShape, order: orderSchema, customFields: customFieldsSchema.meta({ description: "The task's whole set of values: fields left out are cleared (fields above your TLP clearance keep theirs)" }) }).meta({
  id: "TaskUpdate",
});

/**
 * `fields` of `POST /bulk/tasks`: spec §2.3's members; `order` is per task, so not in bulk.
 * `customFields` names only the fields to set (null clears one): each task keeps its others.
 */
export const taskBulkFieldsSchema = changeSchema({
  ...changeShape,
  customFields: customFieldsSchema.meta({ description: "The fields to set on every task (null clears one); each task keeps the fields left out" }),
});

export const taskSchema = z
  .object({
    ...resourceMetaShape,
    caseId: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    status: z.string().meta({ description: "A status key of the organization's task lifecycle" }),
    assigneeId: z.string().nullable(),
    dueDate: z.string().nullable().meta({ format: "date-time" }),
    mandatory: z.boolean(),
    tlp: z.int(),
    order: z.int(),
    customFields: z.record(z.string(), z.unknown()).meta({ description: "Values of the organization's task custom fields; those above your TLP clearance are left out" }),
    deletedAt: z.string().nullable().meta({ format: "date-time" }),
    deletedBy: z.string().nullable(),
  })
  .meta({ id: "Task" });

/** `true`/`false` in a query string, a boolean in a JSON body (bulk filters). */
const flagSchema = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);

/**
 * The task filters, shared by the lists (query parameters) and bulk selectAll (`options.filters`,
 * JSON), so both select exactly the same tasks. A list member means "any of".
 */
const filterShape = (int: IntReader) => ({
  status: anyOf(statusKeySchema).optional(),
  assigneeId: anyOf(boundedString(64)).optional(),
  mandatory: flagSchema.optional(),
  tlp: anyOf(int(0, 4)).optional(),
  dueAfter: timestampSchema.optional().meta({ description: "Due at or after this time (tasks without a due date never match)" }),
  dueBefore: timestampSchema.optional().meta({ description: "Due before this time (tasks without a due date never match)" }),
});
const acrossCasesShape = (int: IntReader) => ({ ...filterShape(int), caseId: anyOf(idSchema("case")).optional() });

/** `GET /cases/{caseId}/tasks`. */
export const taskCaseListQuerySchema = z.strictObject({ ...pageQueryShape, ...filterShape(queryInt) });
/** `GET /tasks`: across the organization's cases. */
export const taskListQuerySchema = z.strictObject({ ...pageQueryShape, ...acrossCasesShape(queryInt) });
/** `options.filters` of the bulk task operations (JSON): `GET /tasks`'s filters. */
export const taskBulkFiltersSchema = z.strictObject({ ...acrossCasesShape(jsonInt), customFields: customFieldFilterValuesSchema("task") });

export const taskListSchema = listResponseSchema(taskSchema).meta({ id: "TaskList" });

/** `POST /bulk/tasks`. */
export const taskBulkUpdateSchema = bulkRequestSchema(taskBulkFiltersSchema, { fields: taskBulkFieldsSchema }).meta({ id: "TaskBulkUpdate" });
/** `DELETE /bulk/tasks`. */
export const taskBulkDeleteSchema = bulkRequestSchema(taskBulkFiltersSchema, {}).meta({ id: "TaskBulkDelete" });

export const taskBulkUpdatedSchema = bulkResultSchema("updated").meta({ id: "TaskBulkUpdated" });
export const taskBulkDeletedSchema = bulkResultSchema("deleted").meta({ id: "TaskBulkDeleted" });

export type TaskCreateInput = z.input<typeof taskCreateSchema>;
export type TaskUpdateInput = z.input<typeof taskUpdateSchema>;
export type TaskListQuery = z.input<typeof taskListQuerySchema>;
export type TaskBulkFilters = z.output<typeof taskBulkFiltersSchema>;
