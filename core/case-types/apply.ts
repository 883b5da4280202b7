import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import type { CaseType } from "./types.js";

type Definitions = Pick<CaseKitDeps, "definitions">;

/** Whether the organization defines any case type (then typeValue must name one), through the definitions cache. */
export function hasCaseTypes(deps: Definitions, tx: UnitOfWork, organizationId: string): Promise<boolean> {
  return deps.definitions.read(tx, organizationId, "case-types:any", () => tx.caseTypes.any(organizationId));
}

/**
 * The case type `key` names, archived or not, through the definitions cache; a key naming none is
 * not kept (any string may be asked, and the answer is an error anyway).
 */
export function caseTypeOf(deps: Definitions, tx: UnitOfWork, organizationId: string, key: string): Promise<CaseType | null> {
  return deps.definitions.read(tx, organizationId, `case-type:${key}`, () => tx.caseTypes.findByKey(organizationId, key), (found) => found !== null);
}

/**
 * The case type a case's typeValue names. Organizations without case types keep free-text
 * typeValue (null here); once one exists, typeValue must name one (400 unknown_case_type), and a
 * new value may not name an archived type (400 case_type_archived) while a case keeps its own.
 */
export async function resolveCaseType(deps: Definitions, tx: UnitOfWork, organizationId: string, typeValue: string | null, previous: string | null): Promise<CaseType | null> {
  if (typeValue === null || !(await hasCaseTypes(deps, tx, organizationId))) return null;
  const type = await caseTypeOf(deps, tx, organizationId, typeValue);
  if (!type) {
    throw new CaseKitError("unknown_case_type", `typeValue: ${JSON.stringify(typeValue)} names no case type of your organization`, [{ path: "typeValue", message: "names no case type of your organization" }]);
  }
  if (type.archivedAt !== null && typeValue !== previous) {
    throw new CaseKitError("case_type_archived", `typeValue: the case type ${typeValue} is archived`, [{ path: "typeValue", message: "names an archived case type" }]);
  }
  return type;
}
