import { visibleUpTo } from "../access/clearance.js";
import type { Principal } from "../access/principal.js";
import { recordEdit } from "../audit/record-edit.js";
import type { CaseKitDeps } from "../context.js";
import { isCaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { guardTlp } from "../tlp/audit-log.js";
import { auditView } from "../tlp/audit-view.js";
import type { Observable, ObservableParent, ObservableTag } from "./types.js";

/** At most this many tags on one observable, as the create and update bodies allow. */
const maxTags = 100;

export type SaveOutcome = "created" | "merged" | "unchanged";

export function parentOf(record: Pick<Observable, "caseId" | "alertId">): ObservableParent {
  return record.caseId !== null ? { kind: "case", id: record.caseId } : { kind: "alert", id: record.alertId! };
}

/**
 * What a second report of a value the parent already has adds to the first: `ioc` and `sighted`
 * are OR-ed (once an indicator, or seen, always so until someone says otherwise with PATCH), tags
 * are united by name (a colour fills in a missing one), a message fills in a missing one, and
 * custom field values fill in fields the first left unset (a value it holds is never replaced).
 * The marking (tlp, pap) stays the existing record's: a duplicate never re-marks data silently.
 */
export function mergeDuplicate(existing: Observable, incoming: Observable): Observable {
  const tags: ObservableTag[] = existing.tags.map((tag) => {
    const color = tag.color ?? incoming.tags.find((t) => t.name === tag.name)?.color;
    return color === undefined ? tag : { ...tag, color };
  });
  for (const tag of incoming.tags) {
    if (!tags.some((t) => t.name === tag.name)) tags.push(tag);
  }
  return {
    ...existing,
    ioc: existing.ioc || incoming.ioc,
    sighted: existing.sighted || incoming.sighted,
    tags: tags.slice(0, Math.max(maxTags, existing.tags.length)),
    message: existing.message ?? incoming.message,
    customFields: { ...existing.customFields, ...Object.fromEntries(Object.entries(incoming.customFields).filter(([key]) => !(key in existing.customFields))) },
  };
}

function sameContent(a: Observable, b: Observable): boolean {
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  return a.ioc === b.ioc && a.sighted === b.sighted && a.message === b.message && same(a.tags, b.tags) && same(a.customFields, b.customFields);
}

/**
 * Saves `candidate` (a new observable, id and timestamps set) under its parent, deduplicating by
 * (dataType, data) among the records the principal may see: the first report is inserted; a later
 * one merges into the visible live record of the highest TLP (`mergeDuplicate`). A record above
 * the principal's clearance is neither merged into nor refused over: the candidate is saved beside
 * it. Writes the audit entry, the outbox event and the TLP audit entry of whatever it changed, in
 * `tx`. Two writers racing with the same value and TLP: the loser's insert is a conflict (the unit
 * stays usable, ObservableRepository.insert), and it merges into the winner's record instead.
 */
export async function saveDeduplicated(
  deps: Pick<CaseKitDeps, "ids" | "definitions">,
  tx: UnitOfWork,
  principal: Principal,
  candidate: Observable,
  now: Date,
  bulkRequestId?: string,
): Promise<{ record: Observable; outcome: SaveOutcome }> {
  const parent = parentOf(candidate);
  // Only a record the caller may see is merged into: one above their clearance never answers for
  // the value, and the candidate is saved beside it (one live record per value and TLP), so adding
  // a value never tells that a hidden record of it exists.
  const visible = visibleUpTo(principal.tlpClearance);
  let existing = await tx.observables.findByValue(principal.organizationId, parent, candidate.dataType, candidate.data, visible);
  if (!existing) {
    try {
      await tx.observables.insert(candidate);
      await recordEdit(deps, tx, principal, { name: "observable.created", resourceType: "observable", before: null, after: candidate, bulkRequestId, now });
      return { record: candidate, outcome: "created" };
    } catch (error) {
      if (!isCaseKitError(error) || error.code !== "conflict") throw error;
      existing = await tx.observables.findByValue(principal.organizationId, parent, candidate.dataType, candidate.data, visible);
      if (!existing) throw error;
    }
  }
  // Never fails (only visible records are found); kept so the rule holds whatever the lookup does.
  guardTlp(principal, existing, "observable", "edit");
  const merged = mergeDuplicate(existing, candidate);
  if (sameContent(existing, merged)) {
    await auditView(deps, tx, principal, "observable", existing, now);
    return { record: existing, outcome: "unchanged" };
  }
  const after: Observable = { ...merged, updatedAt: now.toISOString() };
  await tx.observables.update(after);
  await recordEdit(deps, tx, principal, { name: "observable.updated", resourceType: "observable", before: existing, after, bulkRequestId, now });
  return { record: after, outcome: "merged" };
}
