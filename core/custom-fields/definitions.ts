import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import type { CustomFieldDefinition } from "./types.js";

/**
 * The organization's custom field definitions (archived ones included) as `tx` sees them, through
 * the definitions cache: every path reads them here, the definitions' own service included (a
 * unit that has written one sees its own writes). Frozen: filter or copy, never change them.
 */
export function definitionsOf(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string): Promise<CustomFieldDefinition[]> {
  return deps.definitions.read(tx, organizationId, "custom-fields", () => tx.customFields.listAll(organizationId));
}
