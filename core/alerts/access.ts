import type { Principal } from "../access/principal.js";
import { CaseKitError, unknownReference } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { guardTlp } from "../tlp/audit-log.js";
import type { TlpAction } from "../tlp/types.js";
import type { Alert } from "./types.js";

/**
 * The live alert as the caller may reach it: one of the caller's own organization (unknown ids,
 * other tenants' and soft-deleted alerts are 404 alike), at or below the caller's clearance for
 * `action` (else 403, a TlpDeniedError that withTlpDenialAudit records).
 */
export async function loadAlert(tx: UnitOfWork, principal: Principal, id: string, action: TlpAction, tlpAfter?: number): Promise<Alert> {
  const found = await tx.alerts.findById(principal.organizationId, id);
  if (!found) throw new CaseKitError("not_found", `No alert ${id}`);
  guardTlp(principal, found, "alert", action, tlpAfter ?? found.tlp);
  return found;
}

/** An assignee must be an active user of the caller's organization (422 unknown_reference otherwise). */
export async function checkAssignee(tx: UnitOfWork, principal: Principal, assigneeId: string | null | undefined, path = "assigneeId"): Promise<void> {
  if (!assigneeId) return;
  const user = await tx.users.findById(principal.organizationId, assigneeId);
  if (!user || user.status !== "active") throw unknownReference(path, "must name an active user of your organization");
}
