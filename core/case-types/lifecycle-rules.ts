/**
 * What a case type's `lifecycle` may name, checked wherever a type is written (its route, the
 * configuration import): a case lifecycle the organization has (400 unknown_lifecycle), and, when
 * it changes, one where every case of the type already has its status (409
 * status_not_in_lifecycle: move those cases first, or publish the lifecycle with those statuses).
 */
import type { CaseKitDeps } from "../context.js";
import type { FieldError } from "../errors.js";
import { CaseKitError } from "../errors.js";
import { findLifecycle } from "../lifecycles/current.js";
import type { Lifecycle } from "../lifecycles/types.js";
import { defaultLifecycleKey } from "../lifecycles/types.js";
import type { UnitOfWork } from "../ports/storage.js";

/** The case lifecycle `key` names (null: the default), or unknown_lifecycle at `path`. */
export async function requireCaseLifecycle(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, key: string | null, path: string): Promise<Lifecycle> {
  const found = await findLifecycle(deps, tx, organizationId, "case", key ?? defaultLifecycleKey);
  if (!found) throw unknownLifecycle(key!, path);
  return found;
}

export function unknownLifecycle(key: string, path: string): CaseKitError {
  const message = `names no case lifecycle of your organization (${key}): publish it first (PUT /lifecycles/case/named/${key})`;
  return new CaseKitError("unknown_lifecycle", `${path}: ${message}`, [{ path, message }]);
}

/**
 * The problems of moving the cases of type `typeKey` from lifecycle `from` to `to`: one per
 * status some case of the type is in that `to` lacks (empty: the change may be made).
 */
export async function lifecycleSwitchProblems(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, typeKey: string, from: Lifecycle, to: Lifecycle, path: string): Promise<FieldError[]> {
  if (from.key === to.key) return [];
  // Held as every case write and every publication holds it (core/lifecycles/service.ts): no case
  // moves into a status `to` lacks, and `to` drops none, between this check and the change.
  await tx.tlpAudit.head(organizationId);
  const kept = new Set(to.statuses.map((s) => s.key));
  const errors: FieldError[] = [];
  for (const status of from.statuses.filter((s) => !kept.has(s.key))) {
    const found = await tx.cases.list(organizationId, { maxTlp: 4, typeValue: [typeKey], statusValue: [status.key] }, { limit: 1 });
    if (found.length > 0) errors.push({ path, message: `cases of type ${typeKey} are ${status.key}, which the ${to.key} lifecycle does not have: move them first` });
  }
  return errors;
}

export function statusNotInLifecycle(errors: FieldError[]): CaseKitError {
  return new CaseKitError("status_not_in_lifecycle", `${errors[0]!.path}: ${errors[0]!.message}`, errors);
}
