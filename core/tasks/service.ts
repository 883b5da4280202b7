import { moveFields, prepareCustomFields, visibleRecords } from "../custom-fields/apply.js";
import { customFieldMatches, withoutCustomFieldFilters } from "../custom-fields/list-filter.js";
import type { Principal } from "../access/principal.js";
import { checkStatusFilter } from "../lifecycles/filter-check.js";
import { checkTaskCaseOpen } from "../access/closed-records.js";
import { requireClearance, requireScope } from "../access/principal.js";
import { recordEdit } from "../audit/record-edit.js";
import type { BulkResult } from "../bulk/types.js";
import type { CaseKitDeps } from "../context.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { withTlpDenialAudit } from "../tlp/audit-log.js";
import { auditView, showListed } from "../tlp/audit-view.js";
import { inheritedTlpOfMany } from "../tlp/lineage.js";
import type { TlpAction } from "../tlp/types.js";
import { parse } from "../validation.js";
import { checkAssignee, loadTaskCase, loadVisibleTask } from "./access.js";
import { createTaskBulk } from "./bulk.js";
import { toTaskFilter } from "./filter.js";
import { recordStatusMoves } from "../history/record.js";
import { lifecycleOf } from "../lifecycles/current.js";
import { checkMove, firstNewStatus, requireInitial, requireStatus } from "../lifecycles/engine.js";
import { taskCaseListQuerySchema, taskCreateSchema, taskListQuerySchema, taskUpdateSchema } from "./schema.js";
import type { Task } from "./types.js";

type Page = { data: Task[]; nextCursor: string | null };

export interface TaskService {
  /** Adds a task to a case; tlp defaults to the case's, order to after its last task. */
  create(principal: Principal, caseId: string, input: unknown): Promise<Task>;
  /** The case's live tasks, newest first. */
  listOf(principal: Principal, caseId: string, query: unknown): Promise<Page>;
  /** Live tasks across the organization's cases, newest first. */
  list(principal: Principal, query: unknown): Promise<Page>;
  get(principal: Principal, id: string): Promise<Task>;
  update(principal: Principal, id: string, input: unknown): Promise<Task>;
  /** `update` with a reason for the status history (POST /tasks/{id}/transitions). */
  change(principal: Principal, id: string, input: unknown, reason: string | undefined): Promise<Task>;
  /** Soft delete: the task keeps its data, gets deletedAt / deletedBy, and leaves every read. */
  delete(principal: Principal, id: string): Promise<Task>;
  /** `POST /bulk/tasks`: the same `fields` on many tasks, in one transaction. */
  bulkUpdate(principal: Principal, input: unknown): Promise<BulkResult<"updated">>;
  /** `DELETE /bulk/tasks`: soft-deletes many tasks, in one transaction. */
  bulkDelete(principal: Principal, input: unknown): Promise<BulkResult<"deleted">>;
}

/** A task of a closed case takes no change (core/access/closed-records.ts). */
async function requireOpenTaskCase(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, task: Task): Promise<void> {
  const parent = await tx.cases.findById(principal.organizationId, task.caseId);
  if (parent) await checkTaskCaseOpen(deps, tx, parent);
}

export function createTaskService(deps: CaseKitDeps): TaskService {
  const { storage, clock, ids } = deps;
  const bulk = createTaskBulk(deps);

  const service: TaskService = {
    async create(principal, caseId, input) {
      requireScope(principal, "tasks:write");
      const body = parse(taskCreateSchema, input);
      // Nobody may create what they could not read back.
      if (body.tlp !== undefined) requireClearance(principal, body.tlp);
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const parent = await loadTaskCase(tx, principal, caseId, "edit");
          await checkTaskCaseOpen(deps, tx, parent);
          await checkAssignee(tx, principal, body.assigneeId);
          const lifecycle = await lifecycleOf(deps, tx, principal.organizationId, "task");
          const status = body.status === undefined ? firstNewStatus(lifecycle) : requireInitial(lifecycle, body.status, "status").key;
          const customFields = await prepareCustomFields(deps, tx, principal, { scope: "task", input: body.customFields, previous: {}, creating: true });
          const at = now.toISOString();
          const record: Task = {
            id: ids.next("task"),
            organizationId: principal.organizationId,
            caseId: parent.id,
            title: body.title,
            description: body.description ?? null,
            status,
            assigneeId: body.assigneeId ?? null,
            dueDate: body.dueDate ?? null,
            mandatory: body.mandatory,
            tlp: body.tlp ?? parent.tlp,
            order: body.order ?? ((await tx.tasks.maxOrder(principal.organizationId, parent.id)) ?? 0) + 1,
            customFields,
            createdAt: at,
            updatedAt: at,
            createdBy: principal.userId,
            deletedAt: null,
            deletedBy: null,
          };
          await tx.tasks.insert(record);
          await recordStatusMoves(deps, tx, principal, lifecycle, [{ recordId: record.id, from: null, to: status }], now);
          await recordEdit(deps, tx, principal, { name: "task.created", resourceType: "task", before: null, after: record, now });
          return (await visibleRecords(deps, tx, principal, [record]))[0]!;
        }),
      );
    },

    async listOf(principal, caseId, query) {
      requireScope(principal, "tasks:read");
      const { limit, cursor, ...filters } = parse(taskCaseListQuerySchema, withoutCustomFieldFilters(query));
      const beforeId = decodeCursor(cursor);
      const filter = { ...toTaskFilter(principal, filters), caseId: [caseId] };
      const { parent, rows } = await withTlpDenialAudit(deps, principal, () =>
        storage.read(async (tx) => {
          const parent = await loadTaskCase(tx, principal, caseId, "view");
          await checkStatusFilter(deps, tx, principal.organizationId, "task", filters.status, "status");
          const customField = await customFieldMatches(deps, tx, principal, "task", query);
          return { parent, rows: await visibleRecords(deps, tx, principal, await tx.tasks.list(principal.organizationId, { ...filter, customField }, { limit: limit + 1, beforeId })) };
        }),
      );
      return showListed(deps, principal, "task", toPage(rows, limit), parent.tlp);
    },

    async list(principal, query) {
      requireScope(principal, "tasks:read");
      const { limit, cursor, ...filters } = parse(taskListQuerySchema, withoutCustomFieldFilters(query));
      const beforeId = decodeCursor(cursor);
      const { page, inherited } = await storage.read(async (tx) => {
        await checkStatusFilter(deps, tx, principal.organizationId, "task", filters.status, "status");
        const customField = await customFieldMatches(deps, tx, principal, "task", query);
        const rows = await tx.tasks.list(principal.organizationId, { ...toTaskFilter(principal, filters), customField }, { limit: limit + 1, beforeId });
        const page = toPage(await visibleRecords(deps, tx, principal, rows), limit);
        return { page, inherited: await inheritedTlpOfMany(tx, principal.organizationId, "task", page.data) };
      });
      return showListed(deps, principal, "task", page, inherited);
    },

    async get(principal, id) {
      requireScope(principal, "tasks:read");
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const { record, tlp } = await loadVisibleTask(tx, principal, id, "view");
          await auditView(deps, tx, principal, "task", { id: record.id, tlp }, now);
          return (await visibleRecords(deps, tx, principal, [record]))[0]!;
        }),
      );
    },

    update(principal, id, input) {
      return service.change(principal, id, input, undefined);
    },

    async change(principal, id, input, reason) {
      requireScope(principal, "tasks:write");
      const patch = parse(taskUpdateSchema, input);
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const action: TlpAction = patch.tlp !== undefined ? "change" : "edit";
          const { record: before } = await loadVisibleTask(tx, principal, id, action, patch.tlp);
          await requireOpenTaskCase(deps, tx, principal, before);
          await checkAssignee(tx, principal, patch.assigneeId);
          const lifecycle = await lifecycleOf(deps, tx, principal.organizationId, "task");
          if (patch.status !== undefined) requireStatus(lifecycle, patch.status, "status");
          const after: Task = { ...before, ...patch, updatedAt: now.toISOString() };
          if (patch.customFields !== undefined) after.customFields = await prepareCustomFields(deps, tx, principal, { scope: "task", input: patch.customFields, previous: before.customFields, creating: false });
          await checkMove(lifecycle, before.status, after.status, after, {
            principal,
            stored: before,
            reason,
            hasOpenMandatoryTasks: () => Promise.resolve(false),
            ...(await moveFields(deps, tx, principal, "task")),
          });
          await tx.tasks.update(after);
          await recordStatusMoves(deps, tx, principal, lifecycle, [{ recordId: id, from: before.status, to: after.status }], now, reason);
          await recordEdit(deps, tx, principal, { name: "task.updated", resourceType: "task", before, after, now });
          return (await visibleRecords(deps, tx, principal, [after]))[0]!;
        }),
      );
    },

    async delete(principal, id) {
      requireScope(principal, "tasks:write");
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const { record: before } = await loadVisibleTask(tx, principal, id, "delete");
          await requireOpenTaskCase(deps, tx, principal, before);
          const at = now.toISOString();
          const after: Task = { ...before, updatedAt: at, deletedAt: at, deletedBy: principal.userId };
          await tx.tasks.update(after);
          await recordEdit(deps, tx, principal, { name: "task.deleted", resourceType: "task", before, after, now, tlpAction: "delete" });
          return (await visibleRecords(deps, tx, principal, [after]))[0]!;
        }),
      );
    },

    bulkUpdate: bulk.update,
    bulkDelete: bulk.delete,
  };
  return service;
}
