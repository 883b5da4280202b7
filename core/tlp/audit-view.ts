import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { appendTlpAudit, appendTlpAuditMany } from "./audit-log.js";
import { highestTlp, withinClearance } from "../access/clearance.js";
import { effectiveTlp } from "./effective.js";
import { tlpAuditListThreshold } from "./levels.js";
import type { TlpResourceType } from "./types.js";

/**
 * Appends the allowed `view` entry of one record read, inside the caller's unit of work. `tlp` is
 * the record's effective TLP (core/tlp/effective.ts), as in every entry of the log.
 */
export async function auditView(
  deps: Pick<CaseKitDeps, "ids">,
  tx: UnitOfWork,
  principal: Principal,
  resourceType: TlpResourceType,
  record: { id: string; tlp: number },
  now: Date,
): Promise<void> {
  await appendTlpAudit(deps, tx, principal, { resourceType, resourceId: record.id, action: "view", tlpBefore: record.tlp, tlpAfter: record.tlp, outcome: "allowed" }, now);
}

/**
 * Lists whose records are AMBER+STRICT or RED (effective TLP) write a view entry per such record
 * seen, in one unit of work of their own (the list itself was only a read).
 */
export async function auditListed(
  deps: Pick<CaseKitDeps, "ids" | "clock" | "storage">,
  principal: Principal,
  resourceType: TlpResourceType,
  records: readonly { id: string; tlp: number }[],
): Promise<void> {
  const sensitive = records.filter((record) => record.tlp >= tlpAuditListThreshold);
  if (sensitive.length === 0) return;
  const now = deps.clock.now();
  const views = sensitive.map((record) => ({ resourceType, resourceId: record.id, action: "view" as const, tlpBefore: record.tlp, tlpAfter: record.tlp, outcome: "allowed" as const }));
  await deps.storage.transaction((tx) => appendTlpAuditMany(deps, tx, principal, views, now));
}

/**
 * What a list page shows: the records whose effective TLP (own marking and `inherited`, the
 * highest of their ancestors', per record id or one value for the whole page) is within the
 * caller's clearance, with the AMBER+STRICT and RED ones audited as views. The storage query
 * already leaves the others out, so pages stay full; this is the core's own check of the rule.
 */
export async function showListed<T extends { id: string; tlp: number }>(
  deps: Pick<CaseKitDeps, "ids" | "clock" | "storage">,
  principal: Principal,
  resourceType: TlpResourceType,
  page: { data: T[]; nextCursor: string | null },
  inherited: ReadonlyMap<string, number> | number,
): Promise<{ data: T[]; nextCursor: string | null }> {
  const effective = (record: T) => effectiveTlp(record.tlp, [typeof inherited === "number" ? inherited : (inherited.get(record.id) ?? highestTlp)]);
  const shown = page.data.filter((record) => withinClearance(effective(record), principal.tlpClearance));
  await auditListed(deps, principal, resourceType, shown.map((record) => ({ id: record.id, tlp: effective(record) })));
  return { data: shown, nextCursor: page.nextCursor };
}
