import type { Principal } from "../access/principal.js";
import { checkStatusFilter } from "../lifecycles/filter-check.js";
import { closedTaskCases } from "../access/closed-records.js";
import { requireClearance, requireScope } from "../access/principal.js";
import { runBulk } from "../bulk/run.js";
import { selectionOf } from "../bulk/schema.js";
import type { BulkCandidate, BulkPlan, BulkResult } from "../bulk/types.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { highestTlp } from "../access/clearance.js";
import { inheritedTlpOfMany } from "../tlp/lineage.js";
import { parse } from "../validation.js";
import { checkAssignee } from "./access.js";
import { toTaskFilter } from "./filter.js";
import { recordStatusMoves } from "../history/record.js";
import { lifecycleOf } from "../lifecycles/current.js";
import { bulkMoveRefusal, requireStatus } from "../lifecycles/engine.js";
import type { Lifecycle } from "../lifecycles/types.js";
import { gatingDefinitions } from "../custom-fields/apply.js";
import type { CustomFieldDefinition } from "../custom-fields/types.js";
import type { TaskBulkFilters } from "./schema.js";
import { taskBulkDeleteSchema, taskBulkUpdateSchema } from "./schema.js";
import type { Task } from "./types.js";

type TaskPlan<V extends string> = Pick<BulkPlan<Task, V>, "load" | "select">;

/**
 * How the bulk mechanism finds and writes tasks for one caller: ids through one query per 500
 * (each with its case's marking, so a task of a RED case is tlp_restricted), selectAll through the
 * `GET /tasks` list itself (same filters, same clearance rule, keyset pages) and then the page's
 * case markings (one query per 500, for the effective TLP of events and audit entries), and
 * which of their cases are closed (a task of a closed case is skipped as record_closed). Each
 * operation writes a page with one statement (patchPage).
 */
function taskAccess<V extends string>(principal: Principal, filters: TaskBulkFilters | undefined): TaskPlan<V> {
  const organizationId = principal.organizationId;
  const filter = toTaskFilter(principal, filters ?? {});
  return {
    async load(tx: UnitOfWork, ids: readonly string[]): Promise<BulkCandidate<Task>[]> {
      const found = await tx.tasks.findMany(organizationId, ids);
      const closed = await closedTaskCases(tx, organizationId, found.map(({ task }) => task.caseId));
      return found.map(({ task, caseTlp }) => ({ record: task, inherited: caseTlp, closed: closed.has(task.caseId) }));
    },
    async select(tx, page) {
      const tasks = await tx.tasks.list(organizationId, filter, page);
      const inherited = await inheritedTlpOfMany(tx, organizationId, "task", tasks);
      const closed = await closedTaskCases(tx, organizationId, tasks.map((task) => task.caseId));
      return tasks.map((task) => ({ record: task, inherited: inherited.get(task.id) ?? highestTlp, closed: closed.has(task.caseId) }));
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
      // The task lifecycle, read once in prepare; each record's status before the page is saved.
      let lifecycle: Lifecycle | undefined;
      let fieldDefinitions: CustomFieldDefinition[] = [];
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
          ...taskAccess(principal, selection.kind === "all" ? selection.filters : undefined),
          async prepare(tx) {
            await checkAssignee(tx, principal, fields.assigneeId, "fields.assigneeId");
            if (selection.kind === "all") await checkStatusFilter(tx, principal.organizationId, "task", selection.filters.status, "options.filters.status");
            lifecycle = await lifecycleOf(tx, principal.organizationId, "task");
            if (fields.status !== undefined) requireStatus(lifecycle, fields.status, "fields.status");
            fieldDefinitions = await gatingDefinitions(tx, principal.organizationId, "task");
          },
          apply(task, at) {
            const after = { ...task, ...fields, updatedAt: at };
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
            await patchPage(tx, principal, records, { ...fields, updatedAt: records[0]!.updatedAt });
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
          prepare: async (tx) => {
            if (selection.kind === "all") await checkStatusFilter(tx, principal.organizationId, "task", selection.filters.status, "options.filters.status");
          },
          ...taskAccess(principal, selection.kind === "all" ? selection.filters : undefined),
          apply: (task, at) => ({ ...task, updatedAt: at, deletedAt: at, deletedBy: principal.userId }),
          save: (tx, records) => patchPage(tx, principal, records, { updatedAt: records[0]!.updatedAt, deletedAt: records[0]!.updatedAt, deletedBy: principal.userId }),
        },
        selection,
      );
    },
  };
}
