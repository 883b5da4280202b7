/**
 * The cases that follow one case lifecycle: those whose type names it, or for the default one
 * every other case. What publishing a lifecycle checks and remaps, so a named lifecycle's new
 * version moves its own cases only.
 */
import type { CaseKitDeps } from "../context.js";
import { allCaseTypes } from "../case-types/all.js";
import type { Case } from "../cases/types.js";
import type { UnitOfWork } from "../ports/storage.js";
import { lifecycleKeyOf } from "./case-lifecycle.js";
import { defaultLifecycleKey } from "./types.js";

const pageSize = 500;

/** Calls `each` with every page of the organization's cases in `status` that follow lifecycle `key`. */
export async function forCasesFollowing(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, key: string, status: string, each: (page: Case[]) => Promise<boolean | void>): Promise<void> {
  const types = await allCaseTypes(deps, tx, organizationId);
  const typesByKey = new Map(types.map((t) => [t.key, t]));
  const follows = (c: Case) => lifecycleKeyOf(c.typeValue === null ? null : typesByKey.get(c.typeValue)) === key;
  // A named lifecycle's cases are those of the types naming it: one filtered range.
  const typeValue = key === defaultLifecycleKey ? undefined : types.filter((t) => t.lifecycle === key).map((t) => t.key);
  if (typeValue !== undefined && typeValue.length === 0) return;
  let beforeId: string | undefined;
  for (;;) {
    const page = await tx.cases.list(organizationId, { maxTlp: 4, statusValue: [status], ...(typeValue ? { typeValue } : {}) }, { limit: pageSize, beforeId });
    const following = page.filter(follows);
    if (following.length > 0 && (await each(following)) === false) return;
    if (page.length < pageSize) return;
    beforeId = page.at(-1)!.id;
  }
}
