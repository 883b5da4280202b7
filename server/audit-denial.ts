import type { CaseKit, Principal } from "../core/index.js";
import { isCaseKitError } from "../core/index.js";

/** The refusals of an authenticated caller that the audit log keeps (aggregated: core/audit/refusals.ts). */
const auditedDenials = new Set<string>(["missing_scope", "tlp_restricted"]);

/**
 * Runs a route's work for `principal`; a missing scope or a TLP denial is noted in the
 * organization's audit log as `request.denied` on the operation, then thrown on unchanged.
 * The host notes it, not each service, so every route is covered by the one place routes run.
 */
export async function auditingDenials<T>(kit: CaseKit, principal: Principal, operationId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isCaseKitError(error) && auditedDenials.has(error.code)) {
      await kit.refusals.note({
        organizationId: principal.organizationId,
        actor: principal,
        action: "request.denied",
        target: { type: "operation", id: operationId },
        reason: error.code,
      });
    }
    throw error;
  }
}
