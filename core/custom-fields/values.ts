import type { FieldError } from "../errors.js";
import { characterCount, emailPattern } from "../schema/common.js";
import type { CustomFieldDefinition, CustomFieldScope } from "./types.js";

/** The definitions that shape a scope's values: the scope's own, archived ones included (their stored values stay). */
export function definitionsFor(definitions: readonly CustomFieldDefinition[], scope: CustomFieldScope): CustomFieldDefinition[] {
  return definitions.filter((d) => d.scopes.includes(scope));
}

const datePattern = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Why `value` is not a value of the field, or null when it is (a user id is checked against storage separately). */
export function valueProblem(definition: CustomFieldDefinition, value: unknown): string | null {
  const { type, bounds } = definition;
  switch (type) {
    case "string":
    case "text":
    case "url":
    case "email":
      if (typeof value !== "string") return "must be a string";
      return textProblem(definition, value);
    case "integer":
      if (typeof value !== "number" || !Number.isSafeInteger(value)) return "must be an integer";
      return rangeProblem(bounds, value);
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      return rangeProblem(bounds, value);
    case "boolean":
      return typeof value === "boolean" ? null : "must be true or false";
    case "date":
      return typeof value === "string" && datePattern.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? null : "must be a date (YYYY-MM-DD)";
    case "datetime":
      return typeof value === "string" && dateTimePattern.test(value) && !Number.isNaN(Date.parse(value)) ? null : "must be an ISO 8601 date-time with an offset";
    case "user":
      return typeof value === "string" && /^user_[0-9a-z]{26}$/.test(value) ? null : "must be a user_ id";
    case "enum":
      return typeof value === "string" ? optionProblem(definition, value) : "must be one option id";
    case "multi_enum": {
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) return "must be an array of option ids";
      if (new Set(value).size !== value.length) return "lists an option twice";
      for (const id of value as string[]) {
        const problem = optionProblem(definition, id);
        if (problem) return problem;
      }
      if (bounds.min !== undefined && value.length < bounds.min) return `must choose at least ${bounds.min}`;
      if (bounds.max !== undefined && value.length > bounds.max) return `must choose at most ${bounds.max}`;
      return null;
    }
  }
}

function textProblem(definition: CustomFieldDefinition, value: string): string | null {
  const { bounds, type } = definition;
  const length = characterCount(value);
  const max = bounds.maxLength ?? (type === "text" ? 100_000 : 2000);
  if (length > max) return `must be at most ${max} characters`;
  if (bounds.minLength !== undefined && length < bounds.minLength) return `must be at least ${bounds.minLength} characters`;
  if (type === "email" && !emailPattern.test(value)) return "must be an email address";
  if (type === "url" && !isHttpUrl(value)) return "must be an http or https URL";
  if (type === "string" && bounds.pattern !== undefined && !new RegExp(`^(?:${bounds.pattern})$`, "u").test(value)) return `must match ${bounds.pattern}`;
  return null;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function rangeProblem(bounds: CustomFieldDefinition["bounds"], value: number): string | null {
  if (bounds.min !== undefined && value < bounds.min) return `must be at least ${bounds.min}`;
  if (bounds.max !== undefined && value > bounds.max) return `must be at most ${bounds.max}`;
  return null;
}

function optionProblem(definition: CustomFieldDefinition, id: string): string | null {
  const option = definition.options.find((o) => o.id === id);
  if (!option) return `${JSON.stringify(id)} is not an option id of the field`;
  return null;
}

/** Whether a value counts as set (required checks): null, "", [] do not. */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0);
}

export interface ValueCheck {
  /** The values to store. */
  values: Record<string, unknown>;
  errors: FieldError[];
}

/**
 * Checks a record's `customFields` against the scope's definitions. With no definition for the
 * scope, values stay free-form (today's behaviour). With some, every key must name a defined
 * field, every value must fit its field, a deprecated option or an archived field takes no value
 * it did not already hold (`previous`), and `null` clears a field.
 */
export function checkValues(scopeDefinitions: readonly CustomFieldDefinition[], input: Record<string, unknown>, previous: Record<string, unknown>): ValueCheck {
  if (scopeDefinitions.length === 0) return { values: input, errors: [] };
  const byKey = new Map(scopeDefinitions.map((d) => [d.key, d]));
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(input)) {
    const path = `customFields.${key}`;
    const definition = byKey.get(key);
    if (!definition) {
      errors.push({ path, message: "is not a custom field defined for this kind of record" });
      continue;
    }
    if (value === null) continue;
    const unchanged = JSON.stringify(previous[key]) === JSON.stringify(value);
    if (definition.archivedAt !== null && !unchanged) {
      errors.push({ path, message: "is archived: it takes no new value" });
      continue;
    }
    const problem = valueProblem(definition, value) ?? (unchanged ? null : deprecatedProblem(definition, value, previous[key]));
    if (problem) errors.push({ path, message: problem });
    else values[key] = value;
  }
  return { values, errors };
}

/** A deprecated option may stay where it was chosen, never be newly chosen. */
function deprecatedProblem(definition: CustomFieldDefinition, value: unknown, previous: unknown): string | null {
  if (definition.type !== "enum" && definition.type !== "multi_enum") return null;
  const held = new Set(Array.isArray(previous) ? previous : [previous]);
  for (const id of Array.isArray(value) ? value : [value]) {
    if (held.has(id)) continue;
    if (definition.options.find((o) => o.id === id)?.deprecated) return `${JSON.stringify(id)} is deprecated`;
  }
  return null;
}

/** Defaults for fields the create body left out. */
export function withDefaults(scopeDefinitions: readonly CustomFieldDefinition[], values: Record<string, unknown>): Record<string, unknown> {
  const out = { ...values };
  for (const d of scopeDefinitions) {
    if (d.archivedAt === null && !(d.key in out) && isSet(d.defaultValue)) out[d.key] = d.defaultValue;
  }
  return out;
}
