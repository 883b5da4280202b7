import type { CustomFieldDefinition } from "./types.js";
import { isSet } from "./values.js";

/** When a field's requirement is checked: at create, or when the record moves to a final status. */
export type RequirementMoment = "create" | "close";

export interface UnmetFieldRequirement {
  key: string;
  label: string;
  moment: RequirementMoment;
}

/**
 * The required fields the record does not fill at `moment`: the definitions given are those that
 * apply to the record (its scope, its case type's). Archived fields require nothing. Other code
 * (lifecycle transitions' gates, which know when a move reaches a final status) calls this to list unmet requirements before a move.
 */
export function unmetFieldRequirements(record: { customFields: Record<string, unknown> }, definitions: readonly CustomFieldDefinition[], moment: RequirementMoment): UnmetFieldRequirement[] {
  return definitions
    .filter((d) => d.archivedAt === null && (moment === "create" ? d.required.onCreate : d.required.onClose || d.required.onCreate))
    .filter((d) => !isSet(record.customFields[d.key]))
    .map((d) => ({ key: d.key, label: d.label, moment }));
}
