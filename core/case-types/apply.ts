import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import type { CaseType } from "./types.js";

/**
 * The case type a case's typeValue names. Organizations without case types keep free-text
 * typeValue (null here); once one exists, typeValue must name one (400 unknown_case_type), and a
 * new value may not name an archived type (400 case_type_archived) while a case keeps its own.
 */
export async function resolveCaseType(tx: UnitOfWork, organizationId: string, typeValue: string | null, previous: string | null): Promise<CaseType | null> {
  if (typeValue === null) return null;
  const type = await tx.caseTypes.findByKey(organizationId, typeValue);
  if (!type) {
    if (!(await tx.caseTypes.any(organizationId))) return null;
    throw new CaseKitError("unknown_case_type", `typeValue: ${JSON.stringify(typeValue)} names no case type of your organization`, [{ path: "typeValue", message: "names no case type of your organization" }]);
  }
  if (type.archivedAt !== null && typeValue !== previous) {
    throw new CaseKitError("case_type_archived", `typeValue: the case type ${typeValue} is archived`, [{ path: "typeValue", message: "names an archived case type" }]);
  }
  return type;
}
