import type { Principal } from "../access/principal.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { guardTlp } from "../tlp/audit-log.js";
import type { TlpAction } from "../tlp/types.js";
import type { ObservableParent } from "./types.js";

/** A parent the caller may reach, with the marking new observables inherit. */
export interface VisibleParent {
  parent: ObservableParent;
  tlp: number;
}

/**
 * The parent as the caller may reach it through the observable routes: a case or alert of the
 * caller's own organization (unknown ids, other tenants' records and soft-deleted alerts are 404
 * alike; cases merely shared with the organization are not reachable here), at or below the
 * caller's clearance (else 403, audited by withTlpDenialAudit).
 */
export async function loadParent(tx: UnitOfWork, principal: Principal, parent: ObservableParent, action: TlpAction): Promise<VisibleParent> {
  const found = parent.kind === "case" ? await tx.cases.findById(principal.organizationId, parent.id) : await tx.alerts.findById(principal.organizationId, parent.id);
  if (!found) throw new CaseKitError("not_found", `No ${parent.kind} ${parent.id}`);
  guardTlp(principal, found, parent.kind, action);
  return { parent, tlp: found.tlp };
}
