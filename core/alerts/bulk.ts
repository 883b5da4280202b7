import type { Principal } from "../access/principal.js";
import { checkStatusFilter } from "../lifecycles/filter-check.js";
import { isClosed } from "../access/closed-records.js";
import { lifecycleOf } from "../lifecycles/current.js";
import type { Lifecycle } from "../lifecycles/types.js";
import { requireScope } from "../access/principal.js";
import { visibleUpTo } from "../access/clearance.js";
import { runBulk } from "../bulk/run.js";
import { selectionOf } from "../bulk/schema.js";
import type { BulkCandidate, BulkResult } from "../bulk/types.js";
import type { CaseKitDeps } from "../context.js";
import { parse } from "../validation.js";
import { bulkCustomFieldMatches } from "../custom-fields/list-filter.js";
import { checkAssignee } from "./access.js";
import { alertBulkAssignSchema } from "./schema.js";
import type { Alert, AlertFilter } from "./types.js";

/**
 * `POST /bulk/alerts/assign` on the generic bulk mechanism (core/bulk/run.ts): one transaction;
 * the assignee is checked once, before any alert is read (an unknown or inactive user fails the
 * whole request, nothing changes); ids are loaded 500 per query; selectAll walks `GET /alerts`
 * itself (same filters, same clearance rule, keyset pages); each page is written with one
 * statement. Every alert assigned gets an audit entry and an `alert.updated` event carrying the
 * request's bulk id; unknown, deleted and other-tenant ids are skipped as not_found, alerts above
 * the caller's clearance as tlp_restricted, closed and imported alerts as record_closed.
 */
/** An alert as a bulk candidate: a root (nothing to inherit), closed while its status is final (built-in: closed or imported). */
const candidate = (lifecycle: Lifecycle) => (alert: Alert): BulkCandidate<Alert> => ({ record: alert, inherited: 0, closed: isClosed(lifecycle, alert.statusValue) });

export function createAlertBulk(deps: CaseKitDeps) {
  return {
    async assign(principal: Principal, input: unknown): Promise<BulkResult<"assigned">> {
      requireScope(principal, "alerts:write");
      const body = parse(alertBulkAssignSchema, input);
      const { assigneeId } = body;
      const selection = selectionOf(body, {});
      const organizationId = principal.organizationId;
      const { customFields, ...listFilters } = selection.kind === "all" ? selection.filters : {};
      const filter: AlertFilter = { ...listFilters, maxTlp: visibleUpTo(principal.tlpClearance) };
      // The alert lifecycle, read once in prepare: every record of one operation is judged closed
      // or open by the same statuses (and a page costs no definitions read on PostgreSQL, where
      // each was a round trip: 400 of them in a 100 000-alert bulk).
      let toCandidate: (alert: Alert) => BulkCandidate<Alert> = () => {
        throw new Error("casekit: the alert bulk read a page before its prepare");
      };
      return runBulk(
        deps,
        principal,
        {
          resourceType: "alert",
          scope: "alerts:write",
          verb: "assigned",
          event: "alert.updated",
          tlpAction: "edit",
          async prepare(tx) {
            await checkAssignee(tx, principal, assigneeId);
            if (selection.kind === "all") await checkStatusFilter(deps, tx, organizationId, "alert", selection.filters.statusValue, "options.filters.statusValue");
            filter.customField = await bulkCustomFieldMatches(deps, tx, principal, "alert", customFields);
            toCandidate = candidate(await lifecycleOf(deps, tx, organizationId, "alert"));
          },
          async load(tx, ids) {
            return (await tx.alerts.findMany(organizationId, ids)).map(toCandidate);
          },
          async select(tx, page) {
            return (await tx.alerts.list(organizationId, filter, page)).map(toCandidate);
          },
          apply: (alert, at) => ({ ...alert, assigneeId, updatedAt: at }),
          async save(tx, records) {
            // Every record of a page carries the same assignee and time: one statement writes them.
            await tx.alerts.assignMany(organizationId, records.map((r) => r.id), assigneeId, records[0]!.updatedAt);
          },
        },
        selection,
      );
    },
  };
}
