/**
 * Transitions and status history of one case, alert or task, read and taken as operations. The
 * record is reached exactly as its GET reaches it (tenant, sharing and TLP checks, a denial
 * audited); taking a transition is the record's PATCH with the status and a reason, so both obey
 * the same rules (core/lifecycles/engine.ts).
 */
import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import type { Scope } from "../access/scopes.js";
import type { AlertService } from "../alerts/service.js";
import { loadAlert } from "../alerts/access.js";
import type { CaseService } from "../cases/service.js";
import type { CaseKitDeps } from "../context.js";
import type { StatusChange } from "../history/types.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { loadVisibleTask } from "../tasks/access.js";
import type { TaskService } from "../tasks/service.js";
import { withTlpDenialAudit } from "../tlp/audit-log.js";
import { parse } from "../validation.js";
import { moveFields } from "../custom-fields/apply.js";
import { lifecycleOf } from "./current.js";
import { caseLifecycleOf } from "./case-lifecycle.js";
import type { TransitionOption } from "./engine.js";
import { transitionOptions } from "./engine.js";
import { statusHistoryQuerySchema } from "./schema.js";
import { alertTransitionRequestSchema, caseTransitionRequestSchema, taskTransitionRequestSchema } from "./transition-schemas.js";
import { openKeys } from "./tables.js";
import type { LifecycleEntity } from "./types.js";

interface Reached {
  record: object & { id: string; organizationId: string; assigneeId: string | null };
  status: string;
}

const readScope: Record<LifecycleEntity, Scope> = { case: "cases:read", alert: "alerts:read", task: "tasks:read" };
const statusField: Record<LifecycleEntity, string> = { case: "statusValue", alert: "statusValue", task: "status" };
const transitionSchemas = { case: caseTransitionRequestSchema, alert: alertTransitionRequestSchema, task: taskTransitionRequestSchema } as const;

export function createRecordTransitions(deps: CaseKitDeps, services: { cases: CaseService; alerts: AlertService; tasks: TaskService }) {
  const { storage } = deps;

  async function reach(tx: UnitOfWork, principal: Principal, entity: LifecycleEntity, id: string): Promise<Reached> {
    if (entity === "case") {
      const record = await services.cases.loadVisible(tx, principal, id, "view");
      return { record, status: record.statusValue };
    }
    if (entity === "alert") {
      const record = await loadAlert(tx, principal, id, "view");
      return { record, status: record.statusValue };
    }
    const { record } = await loadVisibleTask(tx, principal, id, "view");
    return { record, status: record.status };
  }

  return {
    /** What the caller may do next with the record, each transition with its unmet gates. */
    async list(principal: Principal, entity: LifecycleEntity, id: string): Promise<{ recordId: string; from: string; data: TransitionOption[] }> {
      requireScope(principal, readScope[entity]);
      return withTlpDenialAudit(deps, principal, () =>
        storage.read(async (tx) => {
          const { record, status } = await reach(tx, principal, entity, id);
          // A record shared with the caller's organization is read-only: no move is theirs to make.
          if (record.organizationId !== principal.organizationId) return { recordId: record.id, from: status, data: [] };
          const typeValue = "typeValue" in record && typeof record.typeValue === "string" ? record.typeValue : null;
          // A case follows its type's lifecycle (case-lifecycle.ts).
          const lifecycle = entity === "case" ? await caseLifecycleOf(deps, tx, principal.organizationId, typeValue) : await lifecycleOf(deps, tx, principal.organizationId, entity);
          const data = await transitionOptions(lifecycle, status, record, {
            principal,
            stored: record,
            reason: undefined,
            hasOpenMandatoryTasks: async () => entity === "case" && tx.tasks.hasOpenMandatory(principal.organizationId, id, openKeys(await lifecycleOf(deps, tx, principal.organizationId, "task"))),
            ...(await moveFields(deps, tx, principal, entity, typeValue)),
          });
          return { recordId: record.id, from: status, data };
        }),
      );
    },

    /** Takes one transition: the record's PATCH with `to` as its status, `fields` beside it and the reason in the history. */
    async perform(principal: Principal, entity: LifecycleEntity, id: string, input: unknown): Promise<object> {
      const { to, reason, fields = {} } = parse(transitionSchemas[entity], input);
      const patch = { ...fields, [statusField[entity]]: to };
      if (entity === "case") return services.cases.change(principal, id, patch, reason);
      if (entity === "alert") return services.alerts.change(principal, id, patch, reason);
      return services.tasks.change(principal, id, patch, reason);
    },

    /** The record's status changes, oldest first, in cursor pages. */
    async history(principal: Principal, entity: LifecycleEntity, id: string, query: unknown): Promise<{ data: StatusChange[]; nextCursor: string | null }> {
      requireScope(principal, readScope[entity]);
      const { limit, cursor } = parse(statusHistoryQuerySchema, query);
      const afterId = decodeCursor(cursor);
      return withTlpDenialAudit(deps, principal, () =>
        storage.read(async (tx) => {
          const { record } = await reach(tx, principal, entity, id);
          const rows = await tx.statusHistory.listByRecord(record.organizationId, entity, record.id, { limit: limit + 1, afterId });
          return toPage(rows, limit);
        }),
      );
    },
  };
}

export type RecordTransitions = ReturnType<typeof createRecordTransitions>;
