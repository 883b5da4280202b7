import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import type { CaseType } from "./types.js";

/** Every case type of the organization, archived ones too, page by page, through the definitions cache. Frozen: copy before sorting. */
export function allCaseTypes(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string): Promise<CaseType[]> {
  return deps.definitions.read(tx, organizationId, "case-types:all", async () => {
    const all: CaseType[] = [];
    for (;;) {
      const page = await tx.caseTypes.list(organizationId, {}, { limit: 500, beforeId: all.at(-1)?.id });
      all.push(...page);
      if (page.length < 500) return all;
    }
  });
}
