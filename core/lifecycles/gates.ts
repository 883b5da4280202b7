/**
 * Gates a transition may require (`requires`), all of which must hold for it to be taken:
 * - `reason`: the request gives a reason (POST …/transitions `reason`);
 * - `no_open_mandatory_tasks`: the case has no mandatory task in a status that is not final;
 * - `field:<path>`: the record, as the transition leaves it, has a value at the dotted path
 *   (`field:assigneeId`, `field:customFields.root_cause`): not null, not "", not an empty list or
 *   object. Any record field may be named; `field:customFields.<key>` must name a custom field
 *   defined for the entity (core/lifecycles/validate.ts), and the fields their definitions require
 *   (on close, on entering a status) are added as such gates to every move (engine.ts).
 */
export const reasonGate = "reason";
export const mandatoryTasksGate = "no_open_mandatory_tasks";
export const fieldGatePrefix = "field:";
/** Where a record keeps its custom fields: `field:customFields.<key>` names a defined field. */
export const customFieldsGatePrefix = `${fieldGatePrefix}customFields.`;

/** The gate that holds when the custom field `key` is set. */
export const customFieldGate = (key: string): string => `${customFieldsGatePrefix}${key}`;

/** Whether `gate` is a name this lifecycle engine knows (fields by their prefix and a path). */
export function isKnownGate(gate: string): boolean {
  if (gate === reasonGate || gate === mandatoryTasksGate) return true;
  return gate.startsWith(fieldGatePrefix) && /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$/.test(gate.slice(fieldGatePrefix.length));
}

/** What the gates look at: the record as the transition leaves it, the reason, the case's tasks. */
export interface GateInput {
  record: object;
  reason: string | undefined;
  /** Asked only when a gate needs it (one query). */
  hasOpenMandatoryTasks: () => Promise<boolean>;
}

/** The gates among `requires` that do not hold, in the order named. */
export async function unmetGates(requires: readonly string[], input: GateInput): Promise<string[]> {
  const unmet: string[] = [];
  for (const gate of requires) {
    if (!(await holds(gate, input))) unmet.push(gate);
  }
  return unmet;
}

/**
 * The gates among `requires` that do not hold, for a write that names no reason and reads no
 * tasks (a bulk page, record by record): `no_open_mandatory_tasks` counts as unmet there.
 */
export function unmetGatesNow(requires: readonly string[], record: object): string[] {
  return requires.filter((gate) => !(gate.startsWith(fieldGatePrefix) && isSet(valueAt(record, gate.slice(fieldGatePrefix.length)))));
}

async function holds(gate: string, input: GateInput): Promise<boolean> {
  if (gate === reasonGate) return input.reason !== undefined && input.reason.trim() !== "";
  if (gate === mandatoryTasksGate) return !(await input.hasOpenMandatoryTasks());
  if (gate.startsWith(fieldGatePrefix)) return isSet(valueAt(input.record, gate.slice(fieldGatePrefix.length)));
  return false;
}

function valueAt(record: object, path: string): unknown {
  let value: unknown = record;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function isSet(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "string") return value.trim() !== "";
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}
