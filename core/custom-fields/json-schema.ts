import { hiddenKeys } from "./floor.js";
import type { CustomFieldDefinition, CustomFieldScope } from "./types.js";
import { definitionsFor } from "./values.js";

/**
 * The JSON Schema (draft 2020-12) of a scope's `customFields`: one property per live field the
 * caller is cleared for, its type, bounds and choices (deprecated options left out: no new value
 * may choose them), `required` for required-on-create fields. With no definition for the scope,
 * any object (free-form). The server checks more (active users, what a value already held).
 */
export function customFieldsJsonSchema(all: readonly CustomFieldDefinition[], scope: CustomFieldScope, clearance: number): Record<string, unknown> {
  const scoped = definitionsFor(all, scope);
  const base = { $schema: "https://json-schema.org/draft/2020-12/schema", title: `customFields of a ${scope}`, type: "object" };
  if (scoped.length === 0) return base;
  const hidden = hiddenKeys(scoped, clearance);
  const live = scoped.filter((d) => d.archivedAt === null && !hidden.has(d.key));
  const properties = Object.fromEntries(live.map((d) => [d.key, propertyOf(d)]));
  const required = live.filter((d) => d.required.onCreate && d.defaultValue === null).map((d) => d.key);
  return { ...base, properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

function propertyOf(d: CustomFieldDefinition): Record<string, unknown> {
  const { bounds } = d;
  const common = { title: d.label, ...(d.description ? { description: d.description } : {}), ...(d.defaultValue !== null ? { default: d.defaultValue } : {}) };
  const lengths = { ...(bounds.minLength !== undefined ? { minLength: bounds.minLength } : {}), maxLength: bounds.maxLength ?? (d.type === "text" ? 100_000 : 2000) };
  const range = { ...(bounds.min !== undefined ? { minimum: bounds.min } : {}), ...(bounds.max !== undefined ? { maximum: bounds.max } : {}) };
  const choices = d.options.filter((o) => !o.deprecated);
  const oneOf = choices.length > 0 ? choices.map((o) => ({ const: o.id, title: o.label })) : [{ not: {} }]; // every option deprecated: no new value
  const nullable = (schema: Record<string, unknown>) => ({ ...common, anyOf: [schema, { type: "null" }] });
  switch (d.type) {
    case "string":
      return nullable({ type: "string", ...lengths, ...(bounds.pattern !== undefined ? { pattern: `^(?:${bounds.pattern})$` } : {}) });
    case "text":
      return nullable({ type: "string", ...lengths });
    case "url":
      return nullable({ type: "string", format: "uri", pattern: "^https?://", ...lengths });
    case "email":
      return nullable({ type: "string", format: "email", ...lengths });
    case "integer":
      return nullable({ type: "integer", ...range });
    case "number":
      return nullable({ type: "number", ...range });
    case "boolean":
      return nullable({ type: "boolean" });
    case "date":
      return nullable({ type: "string", format: "date" });
    case "datetime":
      return nullable({ type: "string", format: "date-time" });
    case "user":
      return nullable({ type: "string", pattern: "^user_[0-9a-z]{26}$" });
    case "enum":
      return nullable({ oneOf });
    case "multi_enum":
      return nullable({ type: "array", items: { oneOf }, uniqueItems: true, ...(bounds.min !== undefined ? { minItems: bounds.min } : {}), ...(bounds.max !== undefined ? { maxItems: bounds.max } : {}) });
  }
}
