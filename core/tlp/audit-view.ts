import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { appendTlpAudit, appendTlpAuditMany } from "./audit-log.js";
import { tlpAuditListThreshold } from "./levels.js";
import type { TlpResourceType } from "./types.js";

/** Appends the allowed `view` entry of one record read, inside the caller's unit of work. */
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
 * Lists whose records are AMBER+STRICT or RED write a view entry per such record seen, in one
 * unit of work of their own (the list itself was only a read).
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
