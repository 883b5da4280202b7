/**
 * fast-check arbitraries derived from JSON Schema (2020-12, as OpenAPI 3.1 uses it): values a
 * schema accepts, for property tests driven by the OpenAPI document (test/server/fuzz.test.ts).
 *
 * Generation is structural (types, bounds, patterns, formats, required members, alternatives);
 * what structure cannot aim at (`not`, `if`/`then`, `oneOf` exclusivity, several patterns) is
 * settled by the caller's `accepts`, the same validator that checks answers, used as a filter.
 * Ids (`^case_[0-9a-z]{26}$` …) are drawn from `ids` (real records) as often as generated.
 */
import fc from "fast-check";

export type JsonSchema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON Schema is untyped JSON

export interface SchemaArbitraryOptions {
  /** `components.schemas` of the document, for `#/components/schemas/…` references. */
  components: Record<string, JsonSchema>;
  /** Existing ids by prefix (`case` → […]), mixed into generated ids. */
  ids?: Record<string, readonly string[]>;
  /** Longest string generated when a schema allows more (bounds near maxLength are tried too). */
  maxStringLength?: number;
  /** Whether `value` satisfies `schema`: decides `if` of `if`/`then` conditions. */
  accepts?: (schema: JsonSchema, value: unknown) => boolean;
}

const idPattern = /^\^(\w+)_\[0-9a-z\]\{26\}\$$/;

export function schemaArbitraries(options: SchemaArbitraryOptions) {
  const cap = options.maxStringLength ?? 40;

  const resolve = (schema: JsonSchema): JsonSchema => {
    if (typeof schema.$ref !== "string") return schema;
    const name = schema.$ref.replace("#/components/schemas/", "");
    const target = options.components[name];
    if (!target) throw new Error(`Unresolved reference ${schema.$ref}`);
    const { $ref: _ref, ...siblings } = schema;
    return resolve({ ...target, ...siblings });
  };

  /** Two schemas that must both hold, merged for generation (patterns kept as a list). */
  const merge = (a: JsonSchema, b: JsonSchema): JsonSchema => {
    const out: JsonSchema = { ...a };
    for (const [key, value] of Object.entries(resolve(b))) {
      if (key === "properties") out.properties = { ...(a.properties ?? {}), ...mergeProperties(a.properties ?? {}, value) };
      else if (key === "required") out.required = [...new Set([...(a.required ?? []), ...value])];
      else if (key === "pattern") out.patterns = [...patternsOf(out), value];
      else if (key === "allOf") out.allOf = [...(a.allOf ?? []), ...value];
      else out[key] = value;
    }
    return out;
  };
  const mergeProperties = (base: Record<string, JsonSchema>, extra: Record<string, JsonSchema>) =>
    Object.fromEntries(Object.entries(extra).map(([name, schema]) => [name, base[name] ? merge(resolve(base[name]), schema) : schema]));
  const patternsOf = (schema: JsonSchema): string[] => [...(schema.patterns ?? []), ...(schema.pattern ? [schema.pattern] : [])];

  /**
   * Whether an object branch can be met at all once merged (a `required` member its closed
   * properties lack, more required members than maxProperties): such a branch is skipped instead
   * of filtered forever.
   */
  const satisfiable = (schema: JsonSchema): boolean => {
    if (schema.type !== "object") return true;
    const required: string[] = schema.required ?? [];
    const properties = schema.properties ?? {};
    if (schema.additionalProperties === false && required.some((name) => !(name in properties))) return false;
    return required.length <= (schema.maxProperties ?? Infinity);
  };

  /** Whether a branch of an alternative is a container, to stop nesting past `depth`. */
  const isContainer = (schema: JsonSchema) => ["array", "object"].includes(resolve(schema).type);

  function valid(raw: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    let schema = resolve(raw);
    if ("const" in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      const [merged, conditions] = (allOf as JsonSchema[]).reduce<[JsonSchema, JsonSchema[]]>(
        ([acc, kept], part) => ("if" in part ? [acc, [...kept, part]] : [merge(acc, part), kept]),
        [rest, []],
      );
      if (conditions.length > 0) return conditioned(valid(merged, depth), merged, conditions, depth);
      schema = merged;
    }
    const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (alternatives) {
      const { anyOf: _any, oneOf: _one, ...base } = schema;
      let branches = alternatives.map((branch) => merge(base, branch)).filter(satisfiable);
      if (branches.length === 0) throw new Error(`No alternative of ${JSON.stringify(raw).slice(0, 200)} can be met`);
      if (depth >= 3 && branches.some((b) => !isContainer(b))) branches = branches.filter((b) => !isContainer(b));
      return fc.oneof(...branches.map((branch) => valid(branch, depth)));
    }
    switch (schema.type) {
      case "string":
        return stringOf(schema);
      case "integer":
        return fc.integer({ min: lower(schema, -1e9), max: upper(schema, 1e9) });
      case "number":
        return fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ min: lower(schema, -1e12), max: upper(schema, 1e12), noNaN: true, noDefaultInfinity: true }));
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      case "array":
        return arrayOf(schema, depth);
      case "object":
        return objectOf(schema, depth);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  /**
   * Values that meet `if`/`then` conditions: for each condition whose `if` the value meets, the
   * members `then` constrains are generated again from both schemas (an observable's `data` for
   * its `dataType`, a webhook's `authConfig` for its `authType`).
   */
  function conditioned(base: fc.Arbitrary<unknown>, schema: JsonSchema, conditions: JsonSchema[], depth: number): fc.Arbitrary<unknown> {
    return conditions.reduce<fc.Arbitrary<unknown>>(
      (arbitrary, condition) =>
        arbitrary.chain((value) => {
          if (!options.accepts?.(condition.if, value) || value === null || typeof value !== "object") return fc.constant(value);
          const then = resolve(condition.then ?? {});
          const members = { ...Object.fromEntries((then.required ?? []).map((name: string) => [name, {}])), ...(then.properties ?? {}) } as Record<string, JsonSchema>;
          const own = (schema.properties ?? {}) as Record<string, JsonSchema>;
          const overrides = Object.fromEntries(Object.entries(members).map(([name, extra]) => [name, valid(own[name] ? merge(resolve(own[name]), extra) : extra, depth + 1)]));
          return fc.record(overrides).map((over) => ({ ...value, ...over }));
        }),
      base,
    );
  }

  const lower = (s: JsonSchema, fallback: number) => Math.max(s.minimum ?? fallback, s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -Infinity);
  const upper = (s: JsonSchema, fallback: number) => Math.min(s.maximum ?? fallback, s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : Infinity);

  function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
    const patterns = patternsOf(schema);
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? Infinity;
    const fits = (s: string) => {
      const length = [...s].length;
      return length >= min && length <= max && patterns.every((p) => new RegExp(p, "u").test(s));
    };
    const id = patterns.map((p) => idPattern.exec(p)?.[1]).find(Boolean);
    const specific = patterns.find((p) => !/^\^\[\^/.test(p) && p !== "\\S");
    let base: fc.Arbitrary<string>;
    if (schema.format === "date-time") base = dateTime();
    else if (schema.format === "ipv4") base = fc.ipV4();
    else if (schema.format === "ipv6") base = fc.ipV6();
    else if (schema.format === "uri") base = fc.webUrl({ validSchemes: ["https", "http"], withQueryParameters: true, withFragments: true });
    else if (specific) base = fc.stringMatching(new RegExp(specific, "u"));
    else {
      const longest = Math.min(max, Math.max(cap, min + cap));
      const texts = [
        fc.string({ unit: "grapheme", minLength: min, maxLength: longest }),
        fc.string({ unit: "binary", minLength: min, maxLength: longest }),
        ...(patterns.includes("\\S") ? [fc.stringMatching(/\S/u)] : []),
      ];
      // Strings at the upper bound, in characters outside the BMP too (two UTF-16 units each).
      if (Number.isFinite(max) && max <= 5000) texts.push(fc.string({ unit: fc.constantFrom("x", "é", "😀", " ", "界"), minLength: Math.max(min, max - 2), maxLength: max }));
      base = fc.oneof(...texts);
    }
    if (id && options.ids?.[id]?.length) base = fc.oneof(fc.constantFrom(...options.ids[id]!), base);
    if (Array.isArray(schema.examples) && schema.examples.length > 0) base = fc.oneof(fc.constantFrom(...(schema.examples as string[])), base);
    return base.filter(fits);
  }

  function dateTime(): fc.Arbitrary<string> {
    return fc
      .tuple(fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }), fc.constantFrom("Z", "+00:00", "+05:30", "-08:00"))
      .map(([date, zone]) => date.toISOString().replace("Z", zone));
  }

  function arrayOf(schema: JsonSchema, depth: number): fc.Arbitrary<unknown[]> {
    const minLength = schema.minItems ?? 0;
    const maxLength = Math.min(schema.maxItems ?? 4, minLength + 4);
    const items = valid(schema.items ?? {}, depth + 1);
    return schema.uniqueItems ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(items, { minLength, maxLength });
  }

  function objectOf(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set<string>(schema.required ?? []);
    const named = fc.record(
      Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valid(property, depth + 1)])),
      { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) },
    );
    const extra = schema.additionalProperties;
    if (!extra || Object.keys(properties).length > 0) return named.filter((value) => sizeFits(schema, value));
    const keys = schema.propertyNames ? stringOf(resolve(schema.propertyNames)) : fc.string({ minLength: 1, maxLength: 10 });
    const minKeys = schema.minProperties ?? 0;
    return fc
      .dictionary(keys, valid(extra === true ? {} : extra, depth + 1), { minKeys, maxKeys: Math.min(schema.maxProperties ?? 4, minKeys + 4), noNullPrototype: true })
      .filter((value) => sizeFits(schema, value));
  }

  const sizeFits = (schema: JsonSchema, value: object) => {
    const count = Object.keys(value).length;
    return count >= (schema.minProperties ?? 0) && count <= (schema.maxProperties ?? Infinity);
  };

  return { valid: (schema: JsonSchema) => valid(schema), resolve };
}
