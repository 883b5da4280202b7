import type { FieldError } from "../errors.js";
import type { CustomFieldDefinition } from "./types.js";
import { valueProblem } from "./values.js";

const choiceTypes = new Set(["enum", "multi_enum"]);
const lengthTypes = new Set(["string", "text", "url", "email"]);
const rangeTypes = new Set(["integer", "number", "multi_enum"]);

/** What makes a definition coherent, whatever wrote it: options, bounds and default that fit the type. */
export function definitionProblems(definition: CustomFieldDefinition, previous: CustomFieldDefinition | null): FieldError[] {
  const errors: FieldError[] = [];
  const { type, options, bounds } = definition;
  if (new Set(options.map((o) => o.id)).size !== options.length) errors.push({ path: "options", message: "lists an option id twice" });
  if (choiceTypes.has(type) && options.length === 0) errors.push({ path: "options", message: `an ${type} field needs at least one option` });
  if (!choiceTypes.has(type) && options.length > 0) errors.push({ path: "options", message: `a ${type} field takes no options` });
  if ((bounds.min !== undefined || bounds.max !== undefined) && !rangeTypes.has(type)) errors.push({ path: "bounds", message: `min and max do not apply to a ${type} field` });
  if ((bounds.minLength !== undefined || bounds.maxLength !== undefined) && !lengthTypes.has(type)) errors.push({ path: "bounds", message: `minLength and maxLength do not apply to a ${type} field` });
  if (bounds.pattern !== undefined) {
    if (type !== "string") errors.push({ path: "bounds.pattern", message: "applies to string fields only" });
    else if (!compiles(bounds.pattern)) errors.push({ path: "bounds.pattern", message: "is not a valid regular expression" });
  }
  if (bounds.min !== undefined && bounds.max !== undefined && bounds.min > bounds.max) errors.push({ path: "bounds", message: "min is above max" });
  if (bounds.minLength !== undefined && bounds.maxLength !== undefined && bounds.minLength > bounds.maxLength) errors.push({ path: "bounds", message: "minLength is above maxLength" });
  if (previous) {
    const kept = new Set(options.map((o) => o.id));
    const removed = previous.options.filter((o) => !kept.has(o.id)).map((o) => o.id);
    if (removed.length > 0) errors.push({ path: "options", message: `option ids are never removed (deprecate them instead): ${removed.join(", ")}` });
  }
  if (errors.length === 0 && definition.defaultValue !== null) {
    const problem = definition.type === "user" ? "a user field takes no default" : valueProblem(definition, definition.defaultValue);
    if (problem) errors.push({ path: "defaultValue", message: problem });
  }
  return errors;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}
