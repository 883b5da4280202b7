import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { appendTlpAudit } from "../tlp/audit-log.js";
import { effectiveTlp } from "../tlp/effective.js";
import { inheritedFrom, recordLineage } from "../tlp/lineage.js";
import type { TlpAction, TlpResourceType } from "../tlp/types.js";
import { recordChange } from "./record-change.js";
import { eventViews } from "../custom-fields/event-view.js";

export interface Edit<T extends { id: string; tlp: number }> {
  /** `<resource>.<verb>`, e.g. `case.updated`. */
  name: string;
  resourceType: TlpResourceType;
  /** null for a record just created. */
  before: T | null;
  after: T;
  bulkRequestId?: string;
  now: Date;
  /** The TLP audit action; by default `change` when the marking changed, else `edit`. */
  tlpAction?: TlpAction;
}

/**
 * Records one allowed write to a TLP-marked record inside the caller's unit of work: the audit
 * entry and outbox event (recordChange), then the entry in the TLP audit chain, in that order.
 * Both carry the record's effective TLP (core/tlp/effective.ts), looked up here from the record's
 * ancestors, so an event of a TLP:CLEAR task in a TLP:RED case is a RED event, and no caller can
 * forget to say so.
 */
export async function recordEdit<T extends { id: string; tlp: number }>(
  deps: Pick<CaseKitDeps, "ids" | "definitions">,
  tx: UnitOfWork,
  actor: Principal,
  edit: Edit<T>,
): Promise<void> {
  // Named, not a rest of `edit`: a rest copies the object through a slow generic path, per change.
  const { before, after, resourceType, now, tlpAction } = edit;
  // A record never changes its parent, so one lookup serves before and after, and names the case
  // it lives in for the audit event (a comment on a task: the task's case, without reading it again).
  const lineage = await recordLineage(tx, actor.organizationId, resourceType, after);
  const inherited = inheritedFrom(lineage);
  const caseId = lineage?.find((marking) => marking.resourceType === "case")?.id;
  const tlpBefore = before === null ? null : effectiveTlp(before.tlp, [inherited]);
  const tlpAfter = effectiveTlp(after.tlp, [inherited]);
  // Custom field values above the event's TLP stay out of the event and the audit entry.
  const [shownAfter, shownBefore] = await eventViews(deps, tx, tlpAfter, before === null ? [after] : [after, before]);
  await recordChange(deps, tx, actor, {
    name: edit.name,
    resourceType,
    before: shownBefore ?? null,
    after: shownAfter!,
    tlp: tlpAfter,
    now,
    ...(edit.bulkRequestId !== undefined ? { bulkRequestId: edit.bulkRequestId } : {}),
    ...(caseId !== undefined ? { caseId } : {}),
  });
  const action = tlpAction ?? (before !== null && after.tlp !== before.tlp ? "change" : "edit");
  await appendTlpAudit(deps, tx, actor, { resourceType, resourceId: after.id, action, tlpBefore, tlpAfter, outcome: "allowed" }, now);
}
