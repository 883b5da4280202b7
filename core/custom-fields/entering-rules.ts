/**
 * What a field's `required.onEnter` and a lifecycle's `field:customFields.<key>` gates must name,
 * checked wherever either side is written: a field required on entering statuses names statuses
 * of the lifecycles of its scopes; a lifecycle gate names a custom field defined for its entity.
 */
import type { FieldError } from "../errors.js";
import type { Lifecycle, LifecycleDefinition, LifecycleEntity } from "../lifecycles/types.js";
import { lifecycleEntities } from "../lifecycles/types.js";
import { customFieldsGatePrefix } from "../lifecycles/gates.js";
import type { CustomFieldDefinition } from "./types.js";

const hasLifecycle = (scope: string): scope is LifecycleEntity => (lifecycleEntities as readonly string[]).includes(scope);

/** Each status of `required.onEnter` is a status of the lifecycle of one of the field's scopes at least. */
export function enteringProblems(definition: CustomFieldDefinition, lifecycles: readonly Lifecycle[]): FieldError[] {
  const scoped = lifecycles.filter((l) => definition.scopes.some((scope) => hasLifecycle(scope) && scope === l.entity));
  return (definition.required.onEnter ?? []).flatMap((key, at) => {
    if (scoped.some((l) => l.statuses.some((s) => s.key === key))) return [];
    const entities = scoped.map((l) => l.entity).join(", ");
    const message = scoped.length === 0 ? "a field of no case, alert or task scope has no statuses to enter" : `names no status of the ${entities} lifecycle (${key})`;
    return [{ path: `required.onEnter.${at}`, message }];
  });
}

/** Each `field:customFields.<key>` gate names a custom field defined (archived or not) for `entity`. */
export function fieldGateProblems(entity: LifecycleEntity, definition: LifecycleDefinition, fields: readonly CustomFieldDefinition[]): FieldError[] {
  const keys = new Set(fields.filter((f) => f.scopes.includes(entity)).map((f) => f.key));
  const errors: FieldError[] = [];
  definition.transitions.forEach((transition, index) => {
    (transition.requires ?? []).forEach((gate, at) => {
      if (!gate.startsWith(customFieldsGatePrefix)) return;
      const key = gate.slice(customFieldsGatePrefix.length);
      if (!keys.has(key)) errors.push({ path: `transitions.${index}.requires.${at}`, message: `names no custom field defined for the ${entity} scope (${key}): keys are lower-case letters, digits and _` });
    });
  });
  return errors;
}
