// Issue 12 item 13: every list query at its documented maxima fits in the request head the host
// reads (`maxRequestHeadBytes`, Node's maxHeaderSize), so a client that keeps to the documented
// limits never meets a 431. Derived from the OpenAPI document: every operation, every parameter.
import { describe, expect, it } from "vitest";
import { apiBasePath, buildOpenApiDocument } from "../../server/index.js";
import { headAllowanceBytes, maxRequestHeadBytes } from "../../server/listen.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON Schema

/** Worst case per UTF-16 code unit once percent-encoded: a 3-byte UTF-8 character is `%XX%XX%XX`. */
const bytesPerUnit = 9;
/** A date-time as `z.iso.datetime` accepts it, at its longest (fraction digits are not bounded: 9 assumed). */
const dateTimeUnits = "2026-03-01T12:00:00.123456789+00:00".length;

/**
 * The longest value a schema admits, in encoded bytes; null when nothing bounds it. Enums and
 * numbers are ASCII that needs no encoding; a pattern made of fixed pieces and bounded
 * repetitions (`^case_[0-9a-z]{26}$`) is bounded by them, unencoded when it admits only letters,
 * digits, `_` and `-`.
 */
function longestValue(schema: Json): number | null {
  if (schema.anyOf) {
    const sizes = (schema.anyOf as Json[]).filter((s) => s.type !== "array").map(longestValue);
    return sizes.some((s) => s === null) ? null : Math.max(...(sizes as number[]));
  }
  if (schema.enum) return Math.max(...(schema.enum as unknown[]).map((value) => String(value).length));
  if (schema.type === "boolean") return "false".length;
  if (schema.type === "integer" || schema.type === "number") {
    if (schema.maximum === undefined || schema.minimum === undefined) return null;
    return Math.max(String(schema.maximum).length, String(schema.minimum).length);
  }
  if (schema.type === "string") {
    if (schema.format === "date-time") return dateTimeUnits * 3;
    if (schema.maxLength !== undefined) return schema.maxLength * bytesPerUnit;
    if (schema.pattern !== undefined) {
      const units = patternLength(schema.pattern as string);
      // Letters, digits, `_` and `-` travel as they are; anything else may need encoding.
      const plain = /^[\^$\w\-[\]{},?]*$/.test((schema.pattern as string).replaceAll("\\d", "0"));
      return units === null ? null : units * (plain ? 1 : bytesPerUnit);
    }
  }
  return null;
}

/** The longest match of an anchored pattern of literals and classes with bounded repeats; null otherwise. */
function patternLength(pattern: string): number | null {
  const body = /^\^(.*)\$$/.exec(pattern)?.[1];
  if (body === undefined || /[|()]/.test(body)) return null;
  let total = 0;
  const atoms = /(\\.|\[(?:\\.|[^\]])*\]|[^\\[{}*+?])(\{(\d+)(?:,(\d*))?\}|[*+?])?/gy;
  let match: RegExpExecArray | null;
  let consumed = 0;
  while ((match = atoms.exec(body)) !== null) {
    consumed = atoms.lastIndex;
    const [, , quantifier, exact, upper] = match;
    if (quantifier === "*" || quantifier === "+" || upper === "") return null;
    total += quantifier === undefined ? 1 : quantifier === "?" ? 1 : Number(upper ?? exact);
  }
  return consumed === body.length ? total : null;
}

interface QueryBound {
  operation: string;
  bytes: number;
  unbounded: string[];
}

function queryBounds(): QueryBound[] {
  const doc = buildOpenApiDocument() as Json;
  const bounds: QueryBound[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Json)) {
    for (const [method, operation] of Object.entries(methods as Json)) {
      const query = ((operation as Json).parameters ?? []).filter((p: Json) => p.in === "query") as Json[];
      if (query.length === 0) continue;
      const unbounded: string[] = [];
      // `GET /api/v1/<path>?` plus ` HTTP/1.1`; path parameters count at their longest as well.
      let bytes = `${method.toUpperCase()} ${apiBasePath}${path}? HTTP/1.1`.length + 64;
      for (const parameter of query) {
        const schema = parameter.schema as Json;
        const list = (schema.anyOf as Json[] | undefined)?.find((s) => s.type === "array") ?? (schema.type === "array" ? schema : undefined);
        const count = list ? (list.maxItems as number | undefined) : 1;
        const value = longestValue(list ? (list.items as Json) : schema);
        if (count === undefined || value === null) {
          unbounded.push(parameter.name as string);
          continue;
        }
        bytes += count * (encodeURIComponent(parameter.name as string).length + 2 + value);
      }
      bounds.push({ operation: `${method.toUpperCase()} ${path}`, bytes, unbounded });
    }
  }
  return bounds;
}

describe("list queries at their documented maxima", () => {
  const bounds = queryBounds();

  it("covers every operation that takes a query", () => {
    expect(bounds.length).toBeGreaterThan(10);
  });

  it.each(bounds.map((b) => [b.operation, b] as const))("%s: every query parameter is bounded in count and length", (_label, bound) => {
    expect(bound.unbounded).toEqual([]);
  });

  it.each(bounds.map((b) => [b.operation, b] as const))("%s: fits in the request head with room for the other headers", (_label, bound) => {
    expect(bound.bytes + headAllowanceBytes).toBeLessThanOrEqual(maxRequestHeadBytes);
  });
});
