import { storedJsonOf } from "../core/stored-json.js";

/**
 * A handler's value as JSON text, the same text `JSON.stringify` gives, except that a record read
 * from storage as JSON text is written as that text (core/stored-json.ts), not serialised again:
 * the records of a list page, the value itself, or the members of an array it is. Only that
 * outer level is looked into; anything else is `JSON.stringify`'s.
 */
export function answerJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const own = storedJsonOf(value);
  if (own !== undefined) return own;
  if (isPlainArray(value)) return listJson(value) ?? JSON.stringify(value);
  if (!isPlainObject(value)) return JSON.stringify(value);
  const { data } = value as { data?: unknown };
  if (!isPlainArray(data) || data.length === 0) return JSON.stringify(value);
  const records = listJson(data);
  if (records === undefined) return JSON.stringify(value);
  // The object's other members keep their order and their JSON.stringify form.
  let out = "{";
  for (const key of Object.keys(value)) {
    const member = key === "data" ? records : JSON.stringify((value as Record<string, unknown>)[key]);
    if (member === undefined) continue; // undefined, functions and symbols are left out, as JSON.stringify does
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(key)}:${member}`;
  }
  return `${out}}`;
}

/**
 * The array's JSON when at least its first member has a stored text; undefined otherwise (stringify
 * it whole). A member without one is JSON.stringify's, unless it has a `toJSON` (which JSON.stringify
 * would call with the member's index): then the whole array is left to JSON.stringify too.
 */
function listJson(items: readonly unknown[]): string | undefined {
  const first = items[0];
  if (first === null || typeof first !== "object" || storedJsonOf(first) === undefined) return undefined;
  const parts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const text = item !== null && typeof item === "object" ? storedJsonOf(item) : undefined;
    if (text !== undefined) {
      parts[i] = text;
      continue;
    }
    if (item !== null && typeof item === "object" && typeof (item as { toJSON?: unknown }).toJSON === "function") return undefined;
    // An array member JSON.stringify cannot write (undefined, a function) is null there.
    parts[i] = JSON.stringify(item) ?? "null";
  }
  return `[${parts.join(",")}]`;
}

/** An array as JSON.stringify writes one member by member: no subclass, no `toJSON` of its own. */
function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype && !Object.hasOwn(value, "toJSON");
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}
