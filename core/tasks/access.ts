import type { Principal } from "../access/principal.js";
import type { Case } from "../cases/types.js";
import { CaseKitError, unknownReference } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { guardTlp } from "../tlp/audit-log.js";
import type { Reached } from "../tlp/reach.js";
import { reachRecord } from "../tlp/reach.js";
import type { TlpAction } from "../tlp/types.js";
import type { Task } from "./types.js";

/**
 * The case as the task routes may reach it: one of the caller's own organization (unknown ids and
 * other tenants' cases are 404 alike; cases merely shared with the organization are not reachable
 * here, as for observables), at or below the caller's clearance (else 403, audited by
 * withTlpDenialAudit).
 */
export async function loadTaskCase(tx: UnitOfWork, principal: Principal, caseId: string, action: TlpAction): Promise<Case> {
  const found = await tx.cases.findById(principal.organizationId, caseId);
  if (!found) throw new CaseKitError("not_found", `No case ${caseId}`);
  guardTlp(principal, found, "case", action);
  return found;
}

/**
 * The live task, reachable only while its case is (404 otherwise, as for an unknown id), at its
 * effective TLP (the higher of its own and its case's: core/tlp/reach.ts) for `action`, and at the
 * one a new marking `tlpAfter` would give it.
 */
export async function loadVisibleTask(tx: UnitOfWork, principal: Principal, id: string, action: TlpAction, tlpAfter?: number): Promise<Reached<Task>> {
  const found = await tx.tasks.findById(principal.organizationId, id);
  if (!found) throw new CaseKitError("not_found", `No task ${id}`);
  return reachRecord(tx, principal, "task", found, action, tlpAfter);
}

/** An assignee must be an active user of the caller's organization. */
export async function checkAssignee(tx: UnitOfWork, principal: Principal, assigneeId: string | null | undefined, path = "assigneeId"): Promise<void> {
  if (!assigneeId) return;
  const user = await tx.users.findById(principal.organizationId, assigneeId);
  if (!user || user.status !== "active") throw unknownReference(path, "must name an active user of your organization");
}
