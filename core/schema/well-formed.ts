import type { FieldError } from "../errors.js";

/**
 * Rules every input to the core obeys, whatever its schema. `parse()` (core/validation.ts) checks
 * them on the raw input before the schema runs, so a new schema cannot forget them, and the
 * OpenAPI document states them on every string (server/openapi.ts).
 */

/** Deepest nesting of objects and arrays any input may have (a body, a query, a filter). */
export const maxInputDepth = 32;

/** At most this many problems are listed, so a body of a million bad strings answers briefly. */
const maxProblems = 20;

/**
 * A NUL character (PostgreSQL text refuses it, C libraries cut at it) or a UTF-16 surrogate not
 * part of a pair (UTF-8 cannot encode it: drivers would store U+FFFD, not what was sent). With
 * the `u` flag a well-formed pair is one code point outside the range, so only lone halves match.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this refuses
const illFormed = /[\u0000\uD800-\uDFFF]/u;

/** The same rule as a JSON Schema pattern (ECMA-262 regular expressions with the `u` flag). */
export const wellFormedTextPattern = "^[^\\u0000\\uD800-\\uDFFF]*$";

export const illFormedMessage = "must not contain NUL (U+0000) or an unpaired UTF-16 surrogate";

export function isWellFormedText(text: string): boolean {
  return !illFormed.test(text);
}

/**
 * Text from outside that is kept, not judged (a webhook receiver's answer): NUL and unpaired
 * surrogates become U+FFFD, so it stores the same on every database.
 */
export function storableText(text: string): string {
  return text.replace(new RegExp(illFormed.source, "gu"), "\uFFFD");
}

/**
 * What breaks the rules in `input`: every string (object keys included) with NUL or a lone
 * surrogate, and nesting deeper than maxInputDepth. It stops descending at the depth limit, so no
 * input can exhaust the stack and a cyclic object from an embedder ends too.
 */
export function inputProblems(input: unknown): FieldError[] {
  const problems: FieldError[] = [];
  visit(input, [], 0, problems);
  return problems.slice(0, maxProblems);
}

/**
 * One value of the walk. Every request's input passes here, so nothing is allocated per value:
 * `path` is one array the walk pushes keys on and pops, spelled out only for a problem. The
 * recursion is as deep as the input's nesting, which stops at maxInputDepth. Members are listed
 * (their names checked) before any is entered, and entered last first: the order the problems
 * have always been reported in.
 */
function visit(value: unknown, path: (string | number)[], depth: number, problems: FieldError[]): void {
  if (problems.length >= maxProblems) return;
  if (typeof value === "string") {
    if (illFormed.test(value)) problems.push({ path: path.join("."), message: illFormedMessage });
    return;
  }
  if (!isContainer(value)) return;
  if (depth >= maxInputDepth) {
    problems.push({ path: path.join("."), message: `nests deeper than ${maxInputDepth} levels of objects and arrays` });
    return;
  }
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) {
      path.push(i);
      visit(value[i], path, depth + 1, problems);
      path.pop();
    }
    return;
  }
  const keys = Object.keys(value);
  for (const key of keys) {
    if (illFormed.test(key)) problems.push({ path: path.length === 0 ? key : `${path.join(".")}.${key}`, message: `its name ${illFormedMessage}` });
  }
  for (let i = keys.length - 1; i >= 0; i--) {
    path.push(keys[i]!);
    visit(value[keys[i]!], path, depth + 1, problems);
    path.pop();
  }
}

/** Arrays and plain objects: what JSON produces. Dates, maps and class instances are the schema's business. */
function isContainer(value: unknown): value is unknown[] | Record<string, unknown> {
  if (Array.isArray(value)) return true;
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
