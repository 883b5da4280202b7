/**
 * The one rule for a custom field's TLP floor: what a caller below it may learn about the field.
 *
 * - The definition, yes: key, label, scopes, type, options, bounds, requirements, the floor itself.
 *   It is the organization's setup, read by whoever works on its records, and says nothing about
 *   any record.
 * - A value, never: not a record's value (redact.ts, on every read, list, bulk result and event),
 *   and not the definition's `defaultValue`, which is the value records get (definitionAsSeen: the
 *   definition reads and the configuration export show it as absent; definition events are marked
 *   with the floor: definitionEventTlp).
 * - Whether a record has the field set, never: a requirement on a field above the caller's
 *   clearance is named `field_above_clearance` in a transitions listing's `unmet` and in a refused
 *   move's (one entry however many such fields), never `field:customFields.<key>`, so neither which
 *   field nor how many are unset is told. That some requirement the caller cannot see is unmet is
 *   the least a refused move must say: it is refused.
 * - Writing what they cannot read, never: a value above the clearance is neither set nor cleared
 *   (apply.ts), and the definition's `defaultValue` and `tlpFloor` are not changed by such a caller
 *   (changesBelowFloor).
 */
import { withinClearance } from "../access/clearance.js";
import type { FieldError } from "../errors.js";
import { customFieldsGatePrefix } from "../lifecycles/gates.js";
import type { CustomFieldDefinition } from "./types.js";

/** What `unmet` says for a requirement on a field above the caller's clearance. */
export const hiddenFieldGate = "field_above_clearance";

/** Whether a caller cleared to `clearance` is below the field's floor. */
export function belowFloor(definition: Pick<CustomFieldDefinition, "tlpFloor">, clearance: number): boolean {
  return definition.tlpFloor !== null && !withinClearance(definition.tlpFloor, clearance);
}

/** Keys of the fields above the clearance. */
export function hiddenKeys(definitions: readonly CustomFieldDefinition[], clearance: number): ReadonlySet<string> {
  const workedOut = () => new Set(definitions.filter((d) => belowFloor(d, clearance)).map((d) => d.key));
  // A list is remembered only once it was seen frozen through and through, which it then stays.
  let byClearance = hiddenKeysOf.get(definitions);
  if (byClearance === undefined) {
    if (!Object.isFrozen(definitions) || !definitions.every(Object.isFrozen)) return workedOut();
    hiddenKeysOf.set(definitions, (byClearance = new Map()));
  }
  let hidden = byClearance.get(clearance);
  if (hidden === undefined) byClearance.set(clearance, (hidden = workedOut()));
  return hidden;
}

/**
 * hiddenKeys, worked out once per definitions list and clearance: the definitions cache hands out
 * the same frozen list until a definition changes (a change is a new list), and a list view or a
 * bulk asks for every record. Only a frozen list of frozen definitions is remembered (one whose
 * keys or floors can still change, say an embedder's, is worked out each time); weak, so a list
 * no longer used takes its sets with it.
 */
const hiddenKeysOf = new WeakMap<readonly CustomFieldDefinition[], Map<number, ReadonlySet<string>>>();

/** The definition as a caller cleared to `clearance` may read it: its default value withheld (null) below the floor. */
export function definitionAsSeen(definition: CustomFieldDefinition, clearance: number): CustomFieldDefinition {
  return belowFloor(definition, clearance) && definition.defaultValue !== null ? { ...definition, defaultValue: null } : definition;
}

/**
 * The TLP a definition's change is announced at: the floor of each side that carries a default
 * value (the highest), null when neither does. A receiver below it gets the redacted notice.
 */
export function definitionEventTlp(before: CustomFieldDefinition | null, after: CustomFieldDefinition): number | null {
  const floors = [before, after].filter((d) => d !== null && d.defaultValue !== null && d.tlpFloor !== null).map((d) => d!.tlpFloor!);
  return floors.length === 0 ? null : Math.max(...floors);
}

/** `unmet` as a caller may read it: gates on fields in `hidden` become one `field_above_clearance`. */
export function concealGates(unmet: readonly string[], hidden: ReadonlySet<string>): string[] {
  if (hidden.size === 0) return [...unmet];
  const isHidden = (gate: string) => gate.startsWith(customFieldsGatePrefix) && hidden.has(gate.slice(customFieldsGatePrefix.length));
  const shown = unmet.filter((gate) => !isHidden(gate));
  return shown.length === unmet.length ? shown : [...shown, hiddenFieldGate];
}

/**
 * A change of a definition by a caller below its floor (as stored): changing its default value or
 * its floor is refused by path, so nobody sets, clears or uncovers what they may not read.
 */
export function changesBelowFloor(before: CustomFieldDefinition, after: CustomFieldDefinition, clearance: number): FieldError[] {
  if (!belowFloor(before, clearance)) return [];
  const errors: FieldError[] = [];
  if (JSON.stringify(after.defaultValue) !== JSON.stringify(before.defaultValue)) errors.push({ path: "defaultValue", message: "is above your TLP clearance" });
  if (after.tlpFloor !== before.tlpFloor) errors.push({ path: "tlpFloor", message: "is above your TLP clearance" });
  return errors;
}
