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
 * apply to the record (its scope, its case type's). Archived fields require nothing. Status moves
 * do not call this: they ask `fieldsRequiredToEnter`, whose keys the lifecycle engine checks as
 * gates beside the transition's own.
 */
export function unmetFieldRequirements(record: { customFields: Record<string, unknown> }, definitions: readonly CustomFieldDefinition[], moment: RequirementMoment): UnmetFieldRequirement[] {
  return definitions
    .filter((d) => d.archivedAt === null && (moment === "create" ? d.required.onCreate : d.required.onClose || d.required.onCreate))
    .filter((d) => !isSet(record.customFields[d.key]))
    .map((d) => ({ key: d.key, label: d.label, moment }));
}

/** What a status move is, as field requirements see it. */
export interface Entering {
  /** The status entered. */
  to: string;
  /** The move goes from a status that is not final into a final one. */
  closing: boolean;
}

/**
 * The keys of the fields that must be set for a record to make the move: required on close (or on
 * create, which closing keeps) when it closes, required on entering the status it enters. The one
 * source of field requirements for every move (core/lifecycles/engine.ts).
 */
export function fieldsRequiredToEnter(definitions: readonly CustomFieldDefinition[], entering: Entering): string[] {
  return definitions
    .filter((d) => d.archivedAt === null)
    .filter((d) => (entering.closing && (d.required.onClose || d.required.onCreate)) || (d.required.onEnter ?? []).includes(entering.to))
    .map((d) => d.key);
}
