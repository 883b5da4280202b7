/**
 * Issue 12 item 11, the whole class: no string with NUL or an unpaired UTF-16 surrogate, and no
 * nesting past the limit, passes `parse()` (core/validation.ts), whatever the schema. Shown on
 * every route's body schema (the route table, server/routes/index.ts): a body the document calls
 * valid (generated from the route's own JSON Schema) passes the route's zod schema, and the same
 * body with one hostile character slipped into any string or member name is refused, at that path.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCaseKitError } from "../../core/index.js";
import { maxInputDepth } from "../../core/schema/well-formed.js";
import { parse } from "../../core/validation.js";
import { buildOpenApiDocument } from "../../server/index.js";
import { apiRoutes } from "../../server/routes/index.js";
import { hostileCharacters, poisoned, stringPlaces } from "../helpers/hostile-text.js";
import { schemaArbitraries } from "../helpers/json-schema-arbitrary.js";
import { componentsResourceId, retarget } from "../helpers/openapi-refs.js";

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON under test

const doc = buildOpenApiDocument() as Json;
const ajv = new Ajv2020({ strict: true, strictRequired: false });
addFormats(ajv);
ajv.addSchema({ $id: componentsResourceId, $defs: retarget(doc.components.schemas) });
const compiled = new Map<string, (value: unknown) => boolean>();
const accepts = (schema: Json, value: unknown): boolean => {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) compiled.set(key, ajv.compile(retarget({ type: "object", ...schema }) as Json) as (value: unknown) => boolean);
  return compiled.get(key)!(value);
};
const arbitraries = schemaArbitraries({ components: doc.components.schemas, accepts });

const hostile = hostileCharacters;

const bodyRoutes = apiRoutes.filter((route) => route.body);

describe("well-formed input, on every route's body schema", () => {
  it("covers every route with a body", () => {
    expect(bodyRoutes.length).toBeGreaterThan(20);
  });

  it.each(bodyRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))("%s: a body the document calls valid passes; one hostile character anywhere is refused at its path", (label, route) => {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const schema = doc.paths[path][route.method.toLowerCase()].requestBody.content["application/json"].schema as Json;
    const valid = arbitraries.valid(schema).filter((value) => accepts({ allOf: [schema] }, value));
    fc.assert(
      fc.property(valid, fc.nat(), fc.constantFrom(...hostile), (body, pick, bad) => {
        // The document and the core's schema agree on the valid body…
        expect(() => parse(route.body!, body), `${label}: ${JSON.stringify(body)}`).not.toThrow();
        // …and a hostile character in any string or member name is refused, where it is.
        const places = stringPlaces(body);
        const place = places.length > 0 ? places[pick % places.length]! : { path: ["zz"], key: true };
        const target = places.length > 0 ? body : { ...(body as Json), zz: 1 };
        const { value, path: where } = poisoned(target, place.path, place.key, bad);
        const error = catchError(() => parse(route.body!, value));
        expect(isCaseKitError(error) && error.code, `${label}: ${JSON.stringify(value)}`).toBe("validation_failed");
        expect((error as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain(where);
      }),
      { numRuns: 30 },
    );
  });

  it("refuses any JSON nested deeper than the limit, at the first level past it, whatever the schema", () => {
    for (const route of bodyRoutes) {
      let deep: unknown = "leaf";
      for (let i = 0; i < maxInputDepth + 5; i++) deep = i % 2 ? [deep] : { d: deep };
      const error = catchError(() => parse(route.body!, { nested: deep }));
      expect(isCaseKitError(error) && error.code).toBe("validation_failed");
      expect((error as Error).message).toMatch(/nests deeper than 32 levels/);
    }
  });

  it("takes well-formed pairs (emoji) and other control characters as text", () => {
    const comment = apiRoutes.find((r) => r.method === "POST" && r.path === "/cases/:caseId/comments")!;
    expect(parse(comment.body!, { body: "tab\there 😀 \u0007 \uFFFD" })).toEqual({ body: "tab\there 😀 \u0007 \uFFFD" });
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

