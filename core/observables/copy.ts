import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { withinClearance } from "../access/clearance.js";
import { appendTlpAudit, TlpDeniedError } from "../tlp/audit-log.js";
import { effectiveTlp } from "../tlp/effective.js";
import { inheritedTlp } from "../tlp/lineage.js";
import { saveDeduplicated } from "./dedupe.js";
import type { Observable } from "./types.js";

export interface CopyObservablesResult {
  /** New observables of the case. */
  created: Observable[];
  /** Observables the case already had, with the alert's flags and tags merged in. */
  merged: Observable[];
  /** Observables the case already had, which the alert's copy added nothing to. */
  unchanged: Observable[];
  /**
   * Alert observables not copied because the case's existing record of the same value is above
   * the principal's TLP clearance (`id` is the alert observable's).
   */
  skipped: { id: string; code: "tlp_restricted" }[];
}

/**
 * Copies every live observable of an alert that the principal may read to a case, inside the
 * caller's unit of work (alert promotion and merge); the others stay on the alert only. Each copy keeps dataType, data, tlp, pap, flags, tags and message, gets a
 * new `obs_` id, the case as its parent, `now` as its times and the principal as its creator, and
 * is deduplicated against the case's live observables exactly as `POST /cases/{caseId}/observables`
 * is (core/observables/dedupe.ts). Every write carries its audit entry, outbox event and TLP audit
 * entry, tagged with `bulkRequestId` when given. The alert's own observables are left as they are.
 *
 * The caller has already checked what the operation needs: that the principal may read the alert
 * and change the case (scopes, tenant, TLP) and that both belong to `principal.organizationId`.
 */
export async function copyObservablesToCase(
  deps: Pick<CaseKitDeps, "ids" | "definitions">,
  tx: UnitOfWork,
  principal: Principal,
  alertId: string,
  caseId: string,
  now: Date,
  options: { bulkRequestId?: string } = {},
): Promise<CopyObservablesResult> {
  const result: CopyObservablesResult = { created: [], merged: [], unchanged: [], skipped: [] };
  const at = now.toISOString();
  const sources = await tx.observables.listByAlert(principal.organizationId, alertId);
  const inherited = sources.length > 0 ? await inheritedTlp(tx, principal.organizationId, "observable", sources[0]!) : 0;
  // What the principal may not read stays on the alert, unmentioned: copying it would create
  // records they cannot see, and naming it would tell them it exists.
  for (const source of sources.filter((s) => withinClearance(effectiveTlp(s.tlp, [inherited]), principal.tlpClearance))) {
    const candidate: Observable = {
      ...source,
      id: deps.ids.next("obs"),
      caseId,
      alertId: null,
      createdAt: at,
      updatedAt: at,
      createdBy: principal.userId,
      deletedAt: null,
      deletedBy: null,
    };
    try {
      const { record, outcome } = await saveDeduplicated(deps, tx, principal, candidate, now, options.bulkRequestId);
      result[outcome].push(record);
    } catch (error) {
      // Refused before anything was written for this observable: the refusal is audited in this
      // unit (it commits with the rest of the copy), and the copy goes on.
      if (!(error instanceof TlpDeniedError)) throw error;
      await appendTlpAudit(deps, tx, principal, error.attempt, now);
      result.skipped.push({ id: source.id, code: "tlp_restricted" });
    }
  }
  return result;
}
