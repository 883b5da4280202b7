/**
 * What a lifecycle must be, beyond its schema: every rule is checked before anything is stored,
 * and every broken one is reported by path. 422 invalid_lifecycle, not validation_failed: the
 * body has the documented shape; what it says breaks a rule no schema states (keys unique,
 * transitions naming the lifecycle's own statuses, the mapping of statuses records are in).
 */
import type { FieldError } from "../errors.js";
import { CaseKitError } from "../errors.js";
import { importedAlertStatus } from "./defaults.js";
import { isKnownGate, mandatoryTasksGate } from "./gates.js";
import type { LifecycleDefinition, LifecycleEntity } from "./types.js";

export function checkDefinition(entity: LifecycleEntity, definition: LifecycleDefinition): void {
  const errors: FieldError[] = [];
  const keys = new Set<string>();
  definition.statuses.forEach((status, index) => {
    if (keys.has(status.key)) errors.push({ path: `statuses.${index}.key`, message: `repeats the key ${status.key}` });
    keys.add(status.key);
  });
  if (!definition.statuses.some((status) => status.category === "new")) errors.push({ path: "statuses", message: "needs at least one status of the new category (where records start)" });
  if (entity === "alert") {
    const imported = definition.statuses.find((status) => status.key === importedAlertStatus);
    if (!imported || !imported.final || imported.category !== "closed") {
      errors.push({ path: "statuses", message: `an alert lifecycle keeps the status ${importedAlertStatus} (category closed, final): promote and merge set it` });
    }
  }
  definition.transitions.forEach((transition, index) => {
    transition.from.forEach((from, at) => {
      if (!keys.has(from)) errors.push({ path: `transitions.${index}.from.${at}`, message: `names no status of this lifecycle (${from})` });
    });
    if (!keys.has(transition.to)) errors.push({ path: `transitions.${index}.to`, message: `names no status of this lifecycle (${transition.to})` });
    (transition.requires ?? []).forEach((gate, at) => {
      if (!isKnownGate(gate)) errors.push({ path: `transitions.${index}.requires.${at}`, message: "is not a gate: reason, no_open_mandatory_tasks or field:<path>" });
      else if (gate === mandatoryTasksGate && entity !== "case") errors.push({ path: `transitions.${index}.requires.${at}`, message: "only a case has mandatory tasks" });
    });
  });
  if (errors.length > 0) throw new CaseKitError("invalid_lifecycle", `${errors[0]!.path}: ${errors[0]!.message}`, errors);
}

/**
 * The mapping must send each removed status that records still use to a status of the new
 * version, and name nothing else.
 */
export function checkMapping(mapping: Record<string, string>, removed: readonly string[], inUse: ReadonlySet<string>, newKeys: ReadonlySet<string>): void {
  const errors: FieldError[] = [];
  for (const [from, to] of Object.entries(mapping)) {
    if (!removed.includes(from)) errors.push({ path: `mapping.${from}`, message: "is not a status this version removes" });
    else if (!newKeys.has(to)) errors.push({ path: `mapping.${from}`, message: `names no status of the new version (${to})` });
  }
  for (const key of removed) {
    if (inUse.has(key) && mapping[key] === undefined) errors.push({ path: `mapping.${key}`, message: "records are in this status: say which status of the new version they move to" });
  }
  if (errors.length > 0) throw new CaseKitError("invalid_lifecycle", `${errors[0]!.path}: ${errors[0]!.message}`, errors);
}
