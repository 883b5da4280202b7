import type { Principal } from "../access/principal.js";
import { checkStatusFilter } from "../lifecycles/filter-check.js";
import { taskParentsOf } from "../access/closed-records.js";
import type { TaskParent } from "../access/closed-records.js";
import { requireClearance, requireScope } from "../access/principal.js";
import { runBulk } from "../bulk/run.js";
import { selectionOf } from "../bulk/schema.js";
import type { BulkCandidate, BulkPlan, BulkResult } from "../bulk/types.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { highestTlp } from "../access/clearance.js";
import { parse } from "../validation.js";
import { checkAssignee } from "./access.js";
import { toTaskFilter } from "./filter.js";
import { recordStatusMoves } from "../history/record.js";
import { lifecycleOf } from "../lifecycles/current.js";
import { bulkMoveRefusal, requireStatus } from "../lifecycles/engine.js";
import type { Lifecycle } from "../lifecycles/types.js";
import { gatingDefinitions, prepareCustomFields } from "../custom-fields/apply.js";
import { bulkCustomFieldMatches } from "../custom-fields/list-filter.js";
import { mergedValues } from "../custom-fields/merge.js";
import type { CustomFieldDefinition } from "../custom-fields/types.js";
import type { TaskBulkFilters } from "./schema.js";
import { taskBulkDeleteSchema, taskBulkUpdateSchema } from "./schema.js";
import type { Task } from "./types.js";

type TaskPlan<V extends string> = Pick<BulkPlan<Task, V>, "load" | "select"> & { prepare(tx: UnitOfWork): Promise<void> };

/**
 * How the bulk mechanism finds and writes tasks for one caller: ids through one query per 500
 * (each with its case's marking, so a task of a RED case is tlp_restricted), selectAll through the
 * `GET /tasks` list itself (same filters, same clearance rule, keyset pages) and then the page's
 * cases, read once (one query per 500): their markings, for the effective TLP of events and audit
 * entries, and which are closed (a task of a closed case is skipped as record_closed). `prepare`
 * checks the selectAll filters that read storage (statuses, custom fields). Each operation writes
 * a page with one statement (patchPage), or one prepared update per task when values differ.
 */
function taskAccess<V extends string>(deps: Pick<CaseKitDeps, "definitions">, principal: Principal, filters: TaskBulkFilters | undefined): TaskPlan<V> {
  const organizationId = principal.organizationId;
  const { customFields, ...listFilters } = filters ?? {};
  const filter = toTaskFilter(principal, listFilters);
  // The cases read so far in this bulk's unit: a selectAll's pages share a few cases, each read once.
  const parents = new Map<string, TaskParent | undefined>();
  return {
    /** The selectAll filters' `customFields`, checked as the list's `cf.` parameters are. */
    async prepare(tx) {
      if (filters?.status !== undefined) await checkStatusFilter(deps, tx, organizationId, "task", filters.status, "options.filters.status");
      filter.customField = await bulkCustomFieldMatches(deps, tx, principal, "task", customFields);
    },
    async load(tx: UnitOfWork, ids: readonly string[]): Promise<BulkCandidate<Task>[]> {
      const found = await tx.tasks.findMany(organizationId, ids);
      await taskParentsOf(deps, tx, organizationId, found.map(({ task }) => task.caseId), parents);
      return found.map(({ task, caseTlp }) => ({ record: task, inherited: caseTlp, closed: parents.get(task.caseId)?.closed ?? false }));
    },
    async select(tx, page) {
      const tasks = await tx.tasks.list(organizationId, filter, page);
      // The page's cases read once for both (and once for the whole bulk): the marking the tasks inherit and whether they are closed.
      await taskParentsOf(deps, tx, organizationId, tasks.map((task) => task.caseId), parents);
      return tasks.map((task) => {
        const parent = parents.get(task.caseId);
        return { record: task, inherited: parent?.tlp ?? highestTlp, closed: parent?.closed ?? false };
      });
    },
  };
}

/** Writes a page whose records all got `patch` (apply set exactly it) with one statement. */
async function patchPage(tx: UnitOfWork, principal: Principal, records: readonly Task[], patch: Parameters<UnitOfWork["tasks"]["patchMany"]>[2]): Promise<void> {
  await tx.tasks.patchMany(principal.organizationId, records.map((task) => task.id), patch);
}

export function createTaskBulk(deps: CaseKitDeps) {
  return {
    async update(principal: Principal, input: unknown): Promise<BulkResult<"updated">> {
      requireScope(principal, "tasks:write");
      const body = parse(taskBulkUpdateSchema, input);
      const { fields } = body;
      // Nobody may mark records above their own clearance: the whole request fails, nothing changes.
      if (fields.tlp !== undefined) requireClearance(principal, fields.tlp);
      const selection = selectionOf(body, {});
      const access = taskAccess<"updated">(deps, principal, selection.kind === "all" ? selection.filters : undefined);
      // The task lifecycle, read once in prepare; each record's status before the page is saved.
      let lifecycle: Lifecycle | undefined;
      let fieldDefinitions: CustomFieldDefinition[] = [];
      // fields.customFields as checked once in prepare: the values to set, and the keys to clear.
      let customFields: { set: Record<string, unknown>; cleared: string[] } | undefined;
      const movedFrom = new Map<string, string>();
      return runBulk(
        deps,
        principal,
        {
          resourceType: "task",
          scope: "tasks:write",
          verb: "updated",
          event: "task.updated",
          tlpAction: "edit",
          load: access.load,
          select: access.select,
          async prepare(tx) {
            await checkAssignee(tx, principal, fields.assigneeId, "fields.assigneeId");
            await access.prepare(tx);
            lifecycle = await lifecycleOf(deps, tx, principal.organizationId, "task");
            if (fields.status !== undefined) requireStatus(lifecycle, fields.status, "fields.status");
            fieldDefinitions = await gatingDefinitions(deps, tx, principal.organizationId, "task");
            if (fields.customFields !== undefined) {
              // Checked once as values no task holds yet: a bulk chooses no deprecated option and sets no archived field.
              const set = await prepareCustomFields(deps, tx, principal, { scope: "task", input: fields.customFields, previous: {}, creating: false });
              customFields = { set, cleared: Object.keys(fields.customFields).filter((key) => fields.customFields![key] === null) };
            }
          },
          apply(task, at) {
            const after = { ...task, ...fields, updatedAt: at };
            if (customFields) after.customFields = mergedValues(task.customFields, customFields.set, customFields.cleared);
            if (fields.status !== undefined && lifecycle) {
              const refusal = bulkMoveRefusal(lifecycle, task.status, fields.status, after, principal, task, fieldDefinitions);
              if (refusal) return { skip: refusal };
              movedFrom.set(task.id, task.status);
            }
            return after;
          },
          // Every task changed gets the same fields: one statement per page; the page's status
          // history in one multi-row insert.
          async save(tx, records) {
            // Each task's values are its own once merged: one update per task, in one prepared statement.
            if (customFields) await tx.tasks.updateMany(records);
            else await patchPage(tx, principal, records, { ...fields, updatedAt: records[0]!.updatedAt });
            if (fields.status === undefined || !lifecycle) return;
            const moves = records.map((task) => ({ recordId: task.id, from: movedFrom.get(task.id) ?? task.status, to: task.status }));
            await recordStatusMoves(deps, tx, principal, lifecycle, moves, new Date(records[0]!.updatedAt));
          },
        },
        selection,
      );
    },

    async delete(principal: Principal, input: unknown): Promise<BulkResult<"deleted">> {
      requireScope(principal, "tasks:write");
      const body = parse(taskBulkDeleteSchema, input);
      const selection = selectionOf(body, {});
      return runBulk(
        deps,
        principal,
        {
          resourceType: "task",
          scope: "tasks:write",
          verb: "deleted",
          event: "task.deleted",
          tlpAction: "delete",
          ...taskAccess(deps, principal, selection.kind === "all" ? selection.filters : undefined),
          apply: (task, at) => ({ ...task, updatedAt: at, deletedAt: at, deletedBy: principal.userId }),
          save: (tx, records) => patchPage(tx, principal, records, { updatedAt: records[0]!.updatedAt, deletedAt: records[0]!.updatedAt, deletedBy: principal.userId }),
        },
        selection,
      );
    },
  };
}
