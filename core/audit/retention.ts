import type { CaseKitDeps } from "../context.js";
import { lastSeqOf } from "./chain.js";
import { signCheckpoint } from "./checkpoint.js";
import { recordAuditEvent } from "./record-event.js";

const day = 86_400_000;

/** Organizations visited per read, and rows deleted per unit of work (each unit short, so writers never wait long). */
const organizationsPerRead = 200;
const rowsPerUnit = 1_000;

export interface PruneReport {
  /** Organizations that got a new checkpoint. */
  checkpoints: number;
  /** Rows deleted (a bulk operation's row holds all its records' events). */
  deleted: number;
}

/**
 * Prunes every organization's audit events older than its retention: the organization's policy
 * `auditRetentionDays`, else the deployment's `config.auditRetentionDays`; neither keeps them.
 *
 * For an organization with anything to prune, ONE unit of work writes a checkpoint naming the
 * last row written before the cut (its last position and hash), signed with a key derived from
 * the deployment's secret (checkpoint.ts), and an `audit_log.pruned` event by the system actor. Rows behind it are then deleted in short units of
 * their own, which the database allows (the delete trigger admits rows at or behind the latest
 * checkpoint and nothing else). Verification starts from the checkpoint, so the remaining chain
 * verifies; a run that stops half-way leaves rows behind the checkpoint, which the next run
 * deletes (and verification skips).
 */
export async function pruneAuditEvents(deps: Pick<CaseKitDeps, "storage" | "clock" | "ids" | "config">): Promise<PruneReport> {
  const { storage } = deps;
  const report: PruneReport = { checkpoints: 0, deleted: 0 };
  const now = deps.clock.now();
  let after = "";
  for (;;) {
    const ids = await storage.read((tx) => tx.organizations.idsAfter(after, organizationsPerRead));
    for (const organizationId of ids) {
      const org = await storage.read((tx) => tx.organizations.findById(organizationId));
      const days = org?.policy.auditRetentionDays ?? deps.config.auditRetentionDays ?? null;
      if (days === null || days <= 0) continue;
      const cut = new Date(now.getTime() - days * day).toISOString();
      const added = await storage.transaction(async (tx) => {
        const last = await tx.audit.lastRowBefore(organizationId, cut);
        if (!last) return false;
        const { checkpoint } = await tx.audit.chainStart(organizationId);
        const seq = lastSeqOf(last);
        if (checkpoint && checkpoint.seq >= seq) return false;
        await tx.audit.addCheckpoint(signCheckpoint({ id: deps.ids.next("ackp"), organizationId, seq, hash: last.hash, at: now.toISOString() }, deps.config.keyHashSecret));
        // The pruning is itself in the trail: who (the system), when, and up to which position.
        await recordAuditEvent(deps, tx, {
          organizationId,
          actor: { type: "system", id: null },
          action: "audit_log.pruned",
          target: { type: "organization", id: organizationId },
          outcome: "success",
          changes: [{ path: "checkpoint.seq", before: checkpoint?.seq ?? null, after: seq }],
          now,
        });
        return true;
      });
      if (added) report.checkpoints++;
      for (;;) {
        const deleted = await storage.transaction((tx) => tx.audit.prune(organizationId, rowsPerUnit));
        report.deleted += deleted;
        if (deleted < rowsPerUnit) break;
      }
    }
    if (ids.length < organizationsPerRead) return report;
    after = ids.at(-1)!;
  }
}
