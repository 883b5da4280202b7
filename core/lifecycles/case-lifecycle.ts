/**
 * Which lifecycle a case follows: the named case lifecycle its type points at (CaseType.lifecycle),
 * or the organization's default one (no type, a free-text type, a type naming none). Every path
 * that reads or moves a case's status asks here, never `lifecycleOf(…, "case")` alone.
 */
import type { CaseKitDeps } from "../context.js";
import { caseTypeOf } from "../case-types/apply.js";
import type { UnitOfWork } from "../ports/storage.js";
import { lifecycleOf } from "./current.js";
import type { Lifecycle } from "./types.js";
import { defaultLifecycleKey } from "./types.js";

/** The key of the lifecycle the cases of `type` follow (no type, or one naming none: the default). */
export function lifecycleKeyOf(type: { lifecycle?: string | null } | null | undefined): string {
  return type?.lifecycle ?? defaultLifecycleKey;
}

/** The key of the lifecycle cases of type `typeValue` follow. */
export async function caseLifecycleKey(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, typeValue: string | null): Promise<string> {
  return lifecycleKeyOf(typeValue === null ? null : await caseTypeOf(deps, tx, organizationId, typeValue));
}

/** The lifecycle a case of type `typeValue` follows. */
export async function caseLifecycleOf(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, typeValue: string | null): Promise<Lifecycle> {
  return lifecycleOf(deps, tx, organizationId, "case", await caseLifecycleKey(deps, tx, organizationId, typeValue));
}

/** caseLifecycleOf for many cases of one organization, each type looked up once. */
export function caseLifecycleResolver(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string): (typeValue: string | null) => Promise<Lifecycle> {
  const byType = new Map<string | null, Promise<Lifecycle>>();
  return (typeValue) => {
    let found = byType.get(typeValue);
    if (!found) byType.set(typeValue, (found = caseLifecycleOf(deps, tx, organizationId, typeValue)));
    return found;
  };
}
