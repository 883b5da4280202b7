import { z } from "zod";
import { boundedString, characterCount, finiteNumber } from "./common.js";

/**
 * Free-form JSON fields (a case's or an alert's `customFields`): any JSON object within these
 * limits, the same for every such field. Depth counts the objects and arrays on the deepest path,
 * the field's own object included (`{}` is 1, `{"a":[1]}` is 2).
 */
export const freeFormLimits = {
  maxDepth: 8,
  maxBytes: 65_536,
  maxKeyLength: 100,
} as const;

const { maxDepth, maxBytes, maxKeyLength } = freeFormLimits;
const keySchema = boundedString(maxKeyLength, 1);

/**
 * The structure as JSON Schema can say it: a value that may nest `levels` more objects and arrays,
 * one named component per level so the document states the depth limit exactly.
 */
function valueSchema(levels: number): z.ZodType {
  const scalars = [z.string(), finiteNumber(), z.boolean(), z.null()] as const;
  if (levels === 0) return z.union(scalars);
  const inner = valueSchema(levels - 1);
  return z
    .union([...scalars, z.array(inner), z.record(keySchema, inner)])
    .meta({ id: `FreeFormValue${levels}`, description: `Any JSON value whose objects and arrays nest at most ${levels} level${levels === 1 ? "" : "s"} deep` });
}

const structure = z.record(keySchema, valueSchema(maxDepth - 1));

/**
 * A free-form JSON object. The limits are checked first, with the path of the offending value
 * (the structure's own errors are a union's and say little), then the structure, which is what
 * the OpenAPI document shows. The size is the one limit JSON Schema cannot state: alone, it is
 * answered like a body over the limit (413 payload_too_large, see `tooLarge`), not as a body the
 * document refuses.
 */
export function freeFormObjectSchema(description: string) {
  return z
    .preprocess((value, ctx) => {
      for (const issue of limitIssues(value)) ctx.addIssue({ code: "custom", input: value, ...issue });
      return value;
    }, structure)
    .meta({
      description: `${description}: a JSON object nesting at most ${maxDepth} levels of objects and arrays (itself included), member names of 1 to ${maxKeyLength} characters, at most ${maxBytes / 1024} KiB as UTF-8 JSON`,
    });
}

/** Depth, member names and size, iteratively (no input can exhaust the stack). */
type LimitIssue = { path: (string | number)[]; message: string; params?: typeof tooLarge };

function limitIssues(value: unknown): LimitIssue[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return []; // the structure says what it must be
  const issues: LimitIssue[] = [];
  const pending: { value: unknown; path: (string | number)[]; depth: number }[] = [{ value, path: [], depth: 1 }];
  while (pending.length > 0 && issues.length < 10) {
    const next = pending.pop()!;
    if (next.value === null || typeof next.value !== "object") continue;
    if (next.depth > maxDepth) {
      issues.push({ path: next.path, message: `nests deeper than ${maxDepth} levels of objects and arrays` });
      continue;
    }
    const isArray = Array.isArray(next.value);
    for (const [key, inner] of Object.entries(next.value)) {
      const path = [...next.path, isArray ? Number(key) : key];
      if (!isArray && (key.length === 0 || characterCount(key) > maxKeyLength)) issues.push({ path, message: `member names must be 1 to ${maxKeyLength} characters` });
      pending.push({ value: inner, path, depth: next.depth + 1 });
    }
  }
  if (issues.length === 0 && jsonBytes(value) > maxBytes) issues.push({ path: [], message: `must serialise to at most ${maxBytes / 1024} KiB`, params: tooLarge });
  return issues;
}

/** Marks a zod issue as a size refusal: parse() answers payload_too_large when only such issues remain. */
export const tooLarge = { casekitCode: "payload_too_large" } as const;

/** Whether a free-form value (a merge of two, say) is within the size limit. */
export function fitsFreeFormSize(value: unknown): boolean {
  return jsonBytes(value) <= maxBytes;
}

/** UTF-8 bytes of the value as JSON; 0 for what JSON cannot carry (a BigInt from an embedder), which the structure refuses. */
function jsonBytes(value: unknown): number {
  try {
    return new TextEncoder().encode(JSON.stringify(value)).length;
  } catch {
    return 0;
  }
}
