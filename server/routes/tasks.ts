import {
  taskBulkDeleteSchema,
  taskBulkDeletedSchema,
  taskBulkUpdateSchema,
  taskBulkUpdatedSchema,
  taskCaseListQuerySchema,
  taskCreateSchema,
  taskListQuerySchema,
  taskListSchema,
  taskSchema,
  taskUpdateSchema,
} from "../../core/index.js";
import { defineApiRoute } from "../route.js";

const reachNote =
  "The task's case must be one of the caller's organization (else 404, as for an id that never existed); the task and its case must both be within the caller's TLP clearance (else 403 `tlp_restricted`).";
const bulkNote =
  "Name the tasks by `ids` (1 to 1 000) or by `options.selectAll: true` with `options.filters` (the filters of `GET /tasks`, as JSON); both at once, or neither, is 400. One transaction: a fault halfway changes nothing. Each changed task gets its own audit entry and event carrying the answer's `bulkRequestId`; unknown, deleted and other organizations' ids are skipped as `not_found`, tasks above the caller's clearance (or whose case is) as `tlp_restricted`.";

const fieldsNote =
  "`customFields` holds the organization's task custom fields (`GET /custom-fields/schema?scope=task`): once it defines any, only defined keys, each value checked (400 `validation_failed` at `customFields.<key>`); values above the caller's clearance are left out of every answer.";
const filterNote = "`cf.<key>=<value>` (up to three) keeps the tasks whose filterable custom field holds the value.";

export const taskRoutes = [
  defineApiRoute({
    method: "POST",
    path: "/cases/:caseId/tasks",
    operationId: "createTask",
    errors: [409, 422],
    tag: "Tasks",
    summary: "Add a task to a case",
    description: `\`tlp\` defaults to the case's (nobody creates a task above their own clearance), \`order\` to after the case's last task, \`status\` to \`waiting\`. Custom fields required on create must be given (a default counts). ${fieldsNote} ${reachNote}`,
    scope: "tasks:write",
    body: taskCreateSchema,
    response: taskSchema,
    handle: ({ kit, principal, params, body }) => kit.tasks.create(principal, params.caseId ?? "", body),
  }),
  defineApiRoute({
    method: "GET",
    path: "/cases/:caseId/tasks",
    operationId: "listCaseTasks",
    tag: "Tasks",
    summary: "List a case's tasks",
    description: `Newest first, keyset-paged with \`limit\` and \`cursor\`; filters as on \`GET /tasks\`, \`cf.<key>\` too. Tasks above the caller's TLP clearance are left out, and so are deleted ones. ${reachNote}`,
    scope: "tasks:read",
    query: taskCaseListQuerySchema,
    response: taskListSchema,
    handle: ({ kit, principal, params, query }) => kit.tasks.listOf(principal, params.caseId ?? "", query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/tasks",
    operationId: "listTasks",
    tag: "Tasks",
    summary: "List tasks across the organization's cases",
    description:
      "Newest first, keyset-paged with `limit` and `cursor`. A repeated filter parameter means any of its values; `dueAfter` is inclusive and `dueBefore` exclusive (tasks without a due date match neither). " +
      filterNote +
      " Tasks above the caller's TLP clearance, or whose case is, are left out, and so are deleted ones.",
    scope: "tasks:read",
    query: taskListQuerySchema,
    response: taskListSchema,
    handle: ({ kit, principal, query }) => kit.tasks.list(principal, query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/tasks/:id",
    operationId: "getTask",
    tag: "Tasks",
    summary: "Get a task",
    description: "404 for an unknown, deleted or other organization's task alike; 403 when the task or its case is above the caller's TLP clearance.",
    scope: "tasks:read",
    response: taskSchema,
    handle: ({ kit, principal, params }) => kit.tasks.get(principal, params.id ?? ""),
  }),
  defineApiRoute({
    method: "PATCH",
    path: "/tasks/:id",
    operationId: "updateTask",
    tag: "Tasks",
    summary: "Change a task",
    description:
      "Send only the fields to change; `null` clears an optional field. Status: waiting ⇄ in_progress, either → completed or cancelled; completed → in_progress and cancelled → waiting reopen. A change the lifecycle does not allow is 409 `invalid_transition`. A case cannot be closed while one of its mandatory tasks is waiting or in_progress (409 `mandatory_tasks_open` on the case). `customFields` replaces the task's values; moving into a final status (or one a field's `required.onEnter` names) while a required field is unset is 409 `required_fields_unset`. " +
      fieldsNote,
    scope: "tasks:write",
    body: taskUpdateSchema,
    response: taskSchema,
    errors: [409, 422],
    handle: ({ kit, principal, params, body }) => kit.tasks.update(principal, params.id ?? "", body),
  }),
  defineApiRoute({
    method: "DELETE",
    path: "/tasks/:id",
    operationId: "deleteTask",
    errors: [409],
    tag: "Tasks",
    summary: "Delete a task",
    description:
      "Soft delete: answers the task with `deletedAt` and `deletedBy` set (event `task.deleted`). It then leaves every read, list and bulk selection, and no longer keeps its case from closing.",
    scope: "tasks:write",
    response: taskSchema,
    handle: ({ kit, principal, params }) => kit.tasks.delete(principal, params.id ?? ""),
  }),
  defineApiRoute({
    method: "POST",
    path: "/bulk/tasks",
    operationId: "bulkUpdateTasks",
    errors: [422],
    tag: "Bulk Operations",
    summary: "Change many tasks at once",
    description: `Sets the same \`fields\` (spec §2.3: title, description, status, assigneeId, dueDate, mandatory, tlp, and \`customFields\`, which sets only the fields it names and keeps each task's others) on every task named; \`options.filters.customFields\` selects by custom field value as \`cf.<key>\` does. A new \`tlp\` above the caller's clearance or an \`assigneeId\` that is not an active user of the organization fails the whole request; a task whose status may not change as asked is skipped as \`invalid_transition\`. ${bulkNote}`,
    scope: "tasks:write",
    body: taskBulkUpdateSchema,
    response: taskBulkUpdatedSchema,
    handle: ({ kit, principal, body }) => kit.tasks.bulkUpdate(principal, body),
  }),
  defineApiRoute({
    method: "DELETE",
    path: "/bulk/tasks",
    operationId: "bulkDeleteTasks",
    tag: "Bulk Operations",
    summary: "Delete many tasks at once",
    description: `Soft-deletes every task named (as \`DELETE /tasks/{id}\` does, event \`task.deleted\`). The selection travels as a JSON body on this DELETE; \`options.filters.customFields\` selects by custom field value as \`cf.<key>\` does (a field that is not there, not filterable or above the caller's clearance: 422 \`unknown_reference\`). ${bulkNote}`,
    scope: "tasks:write",
    errors: [422],
    body: taskBulkDeleteSchema,
    response: taskBulkDeletedSchema,
    handle: ({ kit, principal, body }) => kit.tasks.bulkDelete(principal, body),
  }),
];
