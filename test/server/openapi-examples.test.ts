/**
 * Every operation of the document shows an example of its request body and of each success
 * answer (server/openapi-examples.ts), and every example is valid for its schema: checked here
 * with ajv, independently of Redocly's lint (test/server/openapi-lint.test.ts).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../server/index.js";
import { componentsResourceId, retarget } from "../helpers/openapi-refs.js";

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document under test

describe("the OpenAPI document's examples", () => {
  const doc = buildOpenApiDocument() as Json;
  const ajv = new Ajv2020({ strict: true, strictRequired: false });
  addFormats(ajv);
  ajv.addSchema({ $id: componentsResourceId, $defs: retarget(doc.components.schemas) });

  const media = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, Json>).flatMap(([method, op]) => [
      ...(op.requestBody ? [{ where: `${method.toUpperCase()} ${path} request`, media: op.requestBody.content["application/json"] as Json }] : []),
      ...Object.entries(op.responses as Record<string, Json>)
        .filter(([status]) => status.startsWith("2"))
        .map(([status, response]) => ({ where: `${method.toUpperCase()} ${path} ${status}`, media: onlyMedia(response.content as Json) })),
    ]),
  );

  it("has an example for every request body and success answer", () => {
    expect(media.length).toBeGreaterThan(90);
    expect(media.filter((m) => m.media.example === undefined).map((m) => m.where)).toEqual([]);
  });

  it("gives examples that their schemas accept", () => {
    const invalid = media.flatMap(({ where, media: m }) => {
      // A streamed answer (NDJSON, Server-Sent Events) is text whose records have the item schema.
      if (m["x-item-schema"]) {
        const validateItem = ajv.compile(retarget(m["x-item-schema"]) as Json);
        return streamedRecords(m.example as string).flatMap((record) => (validateItem(record) ? [] : [`${where}: ${ajv.errorsText(validateItem.errors)}`]));
      }
      const validate = ajv.compile(retarget(m.schema) as Json);
      return validate(m.example) ? [] : [`${where}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(invalid).toEqual([]);
  });
});

/** A response's one media type (JSON, or a streamed one). */
function onlyMedia(content: Json): Json {
  const [only, ...others] = Object.values(content);
  expect(others).toEqual([]);
  return only as Json;
}

/** The records in a streamed example: NDJSON lines, or the `data:` of each event. */
function streamedRecords(text: string): unknown[] {
  const lines = text.split("\n").filter((line) => line !== "");
  const data = lines.some((line) => line.startsWith("data: ")) ? lines.filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)) : lines;
  expect(data.length).toBeGreaterThan(0);
  return data.map((line) => JSON.parse(line) as unknown);
}
