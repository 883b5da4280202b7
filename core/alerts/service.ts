import type { Principal } from "../access/principal.js";
import { checkStatusFilter } from "../lifecycles/filter-check.js";
import { checkClosedChange } from "../access/closed-records.js";
import { requireScope } from "../access/principal.js";
import { visibleUpTo } from "../access/clearance.js";
import { recordEdit } from "../audit/record-edit.js";
import type { BulkResult } from "../bulk/types.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError, isCaseKitError } from "../errors.js";
import type { Observable } from "../observables/types.js";
import { decodeCursor, toPage } from "../pagination.js";
import { guardTlp, withTlpDenialAudit } from "../tlp/audit-log.js";
import { auditListed, auditView } from "../tlp/audit-view.js";
import type { TlpAction } from "../tlp/types.js";
import { parse } from "../validation.js";
import { moveFields, prepareCustomFields, visibleRecords } from "../custom-fields/apply.js";
import { customFieldMatches, withoutCustomFieldFilters } from "../custom-fields/list-filter.js";
import { checkAssignee, loadAlert } from "./access.js";
import { createAlertBulk } from "./bulk.js";
import type { AlertImport } from "./import.js";
import { mergeAlert, promoteAlert } from "./import.js";
import { ingestAlert } from "./ingest.js";
import { recordStatusMoves } from "../history/record.js";
import { lifecycleOf } from "../lifecycles/current.js";
import { importedAlertStatus } from "../lifecycles/defaults.js";
import { checkMove, requireStatus } from "../lifecycles/engine.js";
import { alertListQuerySchema, alertSourceMetricQuerySchema, alertUpdateSchema } from "./schema.js";
import type { Alert, AlertSourceCount } from "./types.js";

type Page = { data: Alert[]; nextCursor: string | null };

export interface AlertService {
  /**
   * Creates an alert (`deduplicated: false`), or folds a repeated (source, sourceRef) into the
   * live alert that has it (`deduplicated: true`), with the body's observables.
   */
  create(principal: Principal, input: unknown): Promise<Alert & { deduplicated: boolean; observables: Observable[] }>;
  get(principal: Principal, id: string): Promise<Alert>;
  list(principal: Principal, query: unknown): Promise<Page>;
  update(principal: Principal, id: string, input: unknown): Promise<Alert>;
  /** `update` with a reason for the status history (POST /alerts/{id}/transitions). */
  change(principal: Principal, id: string, input: unknown, reason: string | undefined): Promise<Alert>;
  /** Soft delete: the alert (and its observables) leave every read, list and metric. */
  delete(principal: Principal, id: string): Promise<Alert>;
  /** Brings a soft-deleted alert back (scope org:admin). */
  restore(principal: Principal, id: string): Promise<Alert>;
  promote(principal: Principal, id: string, input: unknown): Promise<AlertImport>;
  merge(principal: Principal, id: string, input: unknown): Promise<AlertImport>;
  /** Live alerts per source within the caller's clearance. */
  countBySource(principal: Principal, query: unknown): Promise<{ data: AlertSourceCount[] }>;
  /** `POST /bulk/alerts/assign`: one assignee for many alerts, in one transaction. */
  bulkAssign(principal: Principal, input: unknown): Promise<BulkResult<"assigned">>;
}

export function createAlertService(deps: CaseKitDeps): AlertService {
  const { storage, clock } = deps;
  const bulk = createAlertBulk(deps);

  const service: AlertService = {
    async create(principal, input) {
      const { alert, deduplicated, observables } = await ingestAlert(deps, principal, input);
      return { ...alert, deduplicated, observables };
    },

    async get(principal, id) {
      requireScope(principal, "alerts:read");
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const found = await loadAlert(tx, principal, id, "view");
          await auditView(deps, tx, principal, "alert", found, now);
          return (await visibleRecords(deps, tx, principal, [found]))[0]!;
        }),
      );
    },

    async list(principal, query) {
      requireScope(principal, "alerts:read");
      const { limit, cursor, includeDeleted, ...filters } = parse(alertListQuerySchema, withoutCustomFieldFilters(query));
      // Deleted records are an admin's business.
      if (includeDeleted) requireScope(principal, "org:admin");
      const beforeId = decodeCursor(cursor);
      const rows = await storage.read(async (tx) => {
        await checkStatusFilter(deps, tx, principal.organizationId, "alert", filters.statusValue, "statusValue");
        const customField = await customFieldMatches(deps, tx, principal, "alert", query);
        return visibleRecords(deps, tx, principal, await tx.alerts.list(principal.organizationId, { ...filters, customField, includeDeleted: includeDeleted ?? false, maxTlp: visibleUpTo(principal.tlpClearance) }, { limit: limit + 1, beforeId }));
      });
      const page = toPage(rows, limit);
      await auditListed(deps, principal, "alert", page.data);
      return page;
    },

    update(principal, id, input) {
      return service.change(principal, id, input, undefined);
    },

    async change(principal, id, input, reason) {
      requireScope(principal, "alerts:write");
      const patch = parse(alertUpdateSchema, input);
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const action: TlpAction = patch.tlp !== undefined ? "change" : "edit";
          const before = await loadAlert(tx, principal, id, action, patch.tlp);
          await checkAssignee(tx, principal, patch.assigneeId);
          const lifecycle = await lifecycleOf(deps, tx, principal.organizationId, "alert");
          if (patch.statusValue !== undefined) requireStatus(lifecycle, patch.statusValue, "statusValue");
          const status = patch.statusValue ?? before.statusValue;
          if (status !== before.statusValue && status === importedAlertStatus) throw new CaseKitError("invalid_transition", "An alert becomes imported only by promote or merge");
          const after: Alert = {
            ...before,
            ...patch,
            eventDate: patch.eventDate === undefined ? before.eventDate : patch.eventDate === null ? null : new Date(patch.eventDate).toISOString(),
            updatedAt: now.toISOString(),
          };
          if (patch.customFields !== undefined) after.customFields = await prepareCustomFields(deps, tx, principal, { scope: "alert", input: patch.customFields, previous: before.customFields, creating: false });
          // The move and its roles, then: a closed or imported alert takes only its lifecycle's
          // moves (core/access/closed-records.ts), then the move's gates.
          await checkMove(lifecycle, before.statusValue, status, after, {
            principal,
            stored: before,
            reason,
            hasOpenMandatoryTasks: () => Promise.resolve(false),
            beforeGates: () => checkClosedChange(lifecycle, before, after),
            ...(await moveFields(deps, tx, principal, "alert")),
          });
          await tx.alerts.update(after);
          await recordStatusMoves(deps, tx, principal, lifecycle, [{ recordId: id, from: before.statusValue, to: status }], now, reason);
          await recordEdit(deps, tx, principal, { name: "alert.updated", resourceType: "alert", before, after, now });
          return (await visibleRecords(deps, tx, principal, [after]))[0]!;
        }),
      );
    },

    async delete(principal, id) {
      requireScope(principal, "alerts:write");
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const before = await loadAlert(tx, principal, id, "delete");
          const at = now.toISOString();
          const after: Alert = { ...before, updatedAt: at, deletedAt: at, deletedBy: principal.userId };
          await tx.alerts.update(after);
          await recordEdit(deps, tx, principal, { name: "alert.deleted", resourceType: "alert", before, after, now, tlpAction: "delete" });
          return (await visibleRecords(deps, tx, principal, [after]))[0]!;
        }),
      );
    },

    async restore(principal, id) {
      requireScope(principal, "org:admin");
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const before = await tx.alerts.findById(principal.organizationId, id, { includeDeleted: true });
          if (!before) throw new CaseKitError("not_found", `No alert ${id}`);
          guardTlp(principal, before, "alert", "edit");
          if (before.deletedAt === null) throw new CaseKitError("conflict", `Alert ${id} is not deleted`);
          // A reference has one live alert per TLP: only one at the same marking stands in the way.
          const found = before.sourceRef === null ? null : await tx.alerts.findBySourceRef(principal.organizationId, before.source, before.sourceRef, before.tlp);
          const taken = found?.tlp === before.tlp ? found : null;
          if (taken) throw new CaseKitError("conflict", `Alert ${taken.id} now has this source and sourceRef; restoring would duplicate it`);
          const after: Alert = { ...before, updatedAt: now.toISOString(), deletedAt: null, deletedBy: null };
          try {
            await tx.alerts.update(after);
          } catch (error) {
            if (isCaseKitError(error) && error.code === "conflict") throw new CaseKitError("conflict", "Another live alert now has this source and sourceRef");
            throw error;
          }
          await recordEdit(deps, tx, principal, { name: "alert.restored", resourceType: "alert", before, after, now });
          return (await visibleRecords(deps, tx, principal, [after]))[0]!;
        }),
      );
    },

    promote: (principal, id, input) => promoteAlert(deps, principal, id, input),
    merge: (principal, id, input) => mergeAlert(deps, principal, id, input),

    async countBySource(principal, query) {
      requireScope(principal, "alerts:read");
      const { from, to, statusValue } = parse(alertSourceMetricQuerySchema, query);
      const data = await storage.read(async (tx) => {
        await checkStatusFilter(deps, tx, principal.organizationId, "alert", statusValue, "statusValue");
        return tx.alerts.countBySource(principal.organizationId, { maxTlp: visibleUpTo(principal.tlpClearance), statusValue, from, to });
      });
      return { data };
    },

    bulkAssign: bulk.assign,
  };
  return service;
}
