import type { Principal } from "../access/principal.js";
import { checkOpen } from "../access/closed-records.js";
import { lifecycleOf } from "../lifecycles/current.js";
import { caseLifecycleOf } from "../lifecycles/case-lifecycle.js";
import { requireScope } from "../access/principal.js";
import { recordEdit } from "../audit/record-edit.js";
import { shapePromotedCase } from "../case-types/case-fields.js";
import { visibleRecords } from "../custom-fields/apply.js";
import type { Case } from "../cases/types.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { CopyObservablesResult } from "../observables/copy.js";
import { copyObservablesToCase } from "../observables/copy.js";
import type { Observable } from "../observables/types.js";
import type { UnitOfWork } from "../ports/storage.js";
import { guardTlp, withTlpDenialAudit } from "../tlp/audit-log.js";
import { parse } from "../validation.js";
import { checkAssignee, loadAlert } from "./access.js";
import { unitedTags } from "./ingest.js";
import { recordStatusMoves } from "../history/record.js";
import { importedAlertStatus } from "../lifecycles/defaults.js";
import { firstNewStatus, requireInitial } from "../lifecycles/engine.js";
import { alertMergeSchema, alertPromoteSchema } from "./schema.js";
import type { Alert } from "./types.js";

/** What promote and merge answer: the case, the alert as now `imported`, and the copy's outcome. */
export interface AlertImport {
  case: Case;
  alert: Alert;
  observables: CopyObservablesResult;
}

/** Promote and merge read the alert and write a case: both scopes, checked before anything else. */
function requireImportScopes(principal: Principal): void {
  requireScope(principal, "alerts:write");
  requireScope(principal, "cases:write");
}

/** The alert, reachable for editing and still waiting for triage (new or acknowledged). */
async function importable(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, id: string): Promise<Alert> {
  const alert = await loadAlert(tx, principal, id, "edit");
  if (alert.statusValue === importedAlertStatus) throw new CaseKitError("conflict", `Alert ${id} was already imported into case ${alert.caseId}`);
  // Promote and merge take the lifecycle's transitions into `imported` (roles and gates aside: they are the system's move).
  const lifecycle = await lifecycleOf(deps, tx, principal.organizationId, "alert");
  if (!lifecycle.transitions.some((t) => t.to === importedAlertStatus && t.from.includes(alert.statusValue))) {
    throw new CaseKitError("invalid_transition", `A ${alert.statusValue} alert cannot be imported; reopen it first`);
  }
  return alert;
}

/** Copies the alert's observables to the case and marks the alert imported, in `tx`. */
async function finishImport(deps: CaseKitDeps, tx: UnitOfWork, principal: Principal, before: Alert, target: Case, verb: "promoted" | "merged", now: Date): Promise<AlertImport> {
  const observables = await copyObservablesToCase(deps, tx, principal, before.id, target.id, now);
  const after: Alert = { ...before, statusValue: importedAlertStatus, caseId: target.id, updatedAt: now.toISOString() };
  await tx.alerts.update(after);
  await recordStatusMoves(deps, tx, principal, await lifecycleOf(deps, tx, principal.organizationId, "alert"), [{ recordId: before.id, from: before.statusValue, to: after.statusValue }], now, `${verb} into case ${target.id}`);
  await recordEdit(deps, tx, principal, { name: `alert.${verb}`, resourceType: "alert", before, after, now });
  const [shownCase, shownAlert] = await visibleRecords(deps, tx, principal, [target, after] as (Case | Alert)[]);
  const shown = async (records: Observable[]) => visibleRecords(deps, tx, principal, records);
  const { created, merged, unchanged, skipped } = observables;
  return { case: shownCase as Case, alert: shownAlert as Alert, observables: { created: await shown(created), merged: await shown(merged), unchanged: await shown(unchanged), skipped } };
}

/**
 * Promotes an alert to a new case: the case takes the alert's title, description, severity, tlp,
 * pap, type, tags, source, sourceRef, custom fields and assignee (the body may override title,
 * description, severity, initial status and assignee), the alert's observables are copied to it,
 * and the alert becomes `imported` with the case's id. One unit of work: all of it, or nothing.
 */
export async function promoteAlert(deps: CaseKitDeps, principal: Principal, id: string, input: unknown): Promise<AlertImport> {
  requireImportScopes(principal);
  // No body at all means no overrides; a JSON null is a body, and not an object.
  const body = parse(alertPromoteSchema, input === undefined ? {} : input);
  const now = deps.clock.now();
  const at = now.toISOString();
  return withTlpDenialAudit(deps, principal, () =>
    deps.storage.transaction(async (tx) => {
      const alert = await importable(deps, tx, principal, id);
      await checkAssignee(tx, principal, body.assigneeId);
      // The alert's own assignee carries over only while still an active user.
      const carried = alert.assigneeId ? await tx.users.findById(principal.organizationId, alert.assigneeId) : null;
      const shaped = await shapePromotedCase(deps, tx, principal, alert);
      // The case follows its type's lifecycle from its first status on.
      const caseLifecycle = await caseLifecycleOf(deps, tx, principal.organizationId, shaped.typeValue);
      const statusValue = body.statusValue === undefined ? firstNewStatus(caseLifecycle) : requireInitial(caseLifecycle, body.statusValue, "statusValue").key;
      const record: Case = {
        id: deps.ids.next("case"),
        organizationId: principal.organizationId,
        number: await tx.organizations.nextCaseNumber(principal.organizationId),
        title: body.title ?? alert.title,
        severity: body.severity ?? alert.severity,
        description: body.description ?? alert.description,
        tlp: alert.tlp,
        pap: alert.pap,
        statusValue,
        typeValue: shaped.typeValue,
        assigneeId: body.assigneeId ?? (carried?.status === "active" ? carried.id : null),
        clientId: null,
        source: alert.source,
        sourceRef: alert.sourceRef,
        tags: alert.tags,
        teams: [],
        organizations: [],
        customFields: shaped.customFields,
        closedAt: null,
        createdAt: at,
        updatedAt: at,
        createdBy: principal.userId,
      };
      await tx.cases.insert(record);
      await recordStatusMoves(deps, tx, principal, caseLifecycle, [{ recordId: record.id, from: null, to: statusValue }], now, `promoted from alert ${alert.id}`);
      await recordEdit(deps, tx, principal, { name: "case.created", resourceType: "case", before: null, after: record, now });
      return finishImport(deps, tx, principal, alert, record, "promoted", now);
    }),
  );
}

/**
 * Merges an alert into an existing case of the caller's organization that the caller may change
 * (a case merely shared with the organization is read-only: 403 organization_restricted; one
 * above the caller's clearance: 403 tlp_restricted; a resolved or closed one takes nothing:
 * 409 record_closed): the alert's tags join the case's, its
 * observables are copied to the case, and the alert becomes `imported` with the case's id.
 * One unit of work: all of it, or nothing.
 */
export async function mergeAlert(deps: CaseKitDeps, principal: Principal, id: string, input: unknown): Promise<AlertImport> {
  requireImportScopes(principal);
  const { caseId } = parse(alertMergeSchema, input);
  const now = deps.clock.now();
  return withTlpDenialAudit(deps, principal, () =>
    deps.storage.transaction(async (tx) => {
      const alert = await importable(deps, tx, principal, id);
      const target = await tx.cases.findById(principal.organizationId, caseId);
      if (!target) {
        if (await tx.cases.findSharedWith(principal.organizationId, caseId)) {
          throw new CaseKitError("organization_restricted", "A case shared with your organization is read-only");
        }
        throw new CaseKitError("not_found", `No case ${caseId}`);
      }
      guardTlp(principal, target, "case", "edit");
      checkOpen(await caseLifecycleOf(deps, tx, principal.organizationId, target.typeValue), target);
      const tags = unitedTags(target.tags, alert.tags);
      let merged = target;
      if (JSON.stringify(tags) !== JSON.stringify(target.tags)) {
        merged = { ...target, tags, updatedAt: now.toISOString() };
        await tx.cases.update(merged);
        await recordEdit(deps, tx, principal, { name: "case.updated", resourceType: "case", before: target, after: merged, now });
      }
      return finishImport(deps, tx, principal, alert, merged, "merged", now);
    }),
  );
}
