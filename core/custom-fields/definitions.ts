import type { UnitOfWork } from "../ports/storage.js";
import type { CustomFieldDefinition } from "./types.js";

/** Per unit of work and organization: one read serves the unit's checks, redaction and events. */
const read = new WeakMap<UnitOfWork, Map<string, Promise<CustomFieldDefinition[]>>>();

/**
 * The organization's custom field definitions, read once per unit of work. Only the definitions'
 * own service writes them, and it reads them with tx.customFields directly.
 */
export function definitionsOf(tx: UnitOfWork, organizationId: string): Promise<CustomFieldDefinition[]> {
  let byOrganization = read.get(tx);
  if (!byOrganization) read.set(tx, (byOrganization = new Map()));
  let definitions = byOrganization.get(organizationId);
  if (!definitions) byOrganization.set(organizationId, (definitions = tx.customFields.listAll(organizationId)));
  return definitions;
}
