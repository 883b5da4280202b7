import type { Principal } from "../access/principal.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { guardTlp } from "./audit-log.js";
import { effectiveTlp } from "./effective.js";
import { lineageOf, parentOf } from "./lineage.js";
import type { TlpAction, TlpResourceType } from "./types.js";

/** A record the caller may act on, with the highest marking above it and its effective TLP. */
export interface Reached<T> {
  record: T;
  /** The highest marking among its ancestors (0 for a root). */
  inherited: number;
  /** Its effective TLP: the highest of its own marking and `inherited`. */
  tlp: number;
}

/**
 * The access check of one record found by id: its ancestors must all be live records of the
 * caller's organization (else 404 for the record, as for an unknown id), and its effective TLP,
 * and the one it would get (`tlpAfter`, a new own marking), within the caller's clearance (else a
 * TlpDeniedError for the record at its effective TLP, written to the TLP audit log by
 * withTlpDenialAudit).
 */
export async function reachRecord<T extends { id: string; tlp: number }>(
  tx: UnitOfWork,
  principal: Principal,
  resourceType: TlpResourceType,
  record: T,
  action: TlpAction,
  tlpAfter?: number,
): Promise<Reached<T>> {
  const parent = parentOf(resourceType, record);
  const lineage = parent ? await lineageOf(tx, principal.organizationId, parent) : [];
  if (!lineage) throw new CaseKitError("not_found", `No ${resourceType} ${record.id}`);
  const inherited = effectiveTlp(0, lineage.map((m) => m.tlp));
  const tlp = effectiveTlp(record.tlp, [inherited]);
  guardTlp(principal, { id: record.id, tlp }, resourceType, action, effectiveTlp(tlpAfter ?? record.tlp, [inherited]));
  return { record, inherited, tlp };
}
