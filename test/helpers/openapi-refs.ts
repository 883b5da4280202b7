// ajv knows the OpenAPI document's component schemas as one registered resource; an operation's
// schemas point into it. Shared by every test that validates against the document.

/** The $id under which the document's `components.schemas` are registered with ajv. */
export const componentsResourceId = "https://casekit.test/components";

/** Points `#/components/schemas/X` references at the components resource registered with ajv. */
export function retarget(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(retarget);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === "$ref" && typeof inner === "string" && inner.startsWith("#/components/schemas/")
        ? `${componentsResourceId}#/$defs/${inner.slice("#/components/schemas/".length)}`
        : retarget(inner),
    ]),
  );
}
