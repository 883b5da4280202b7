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
  if (isPlainArray(value)) {
    const parts: string[] = [];
    return listParts(value, parts) ? parts.join("") : JSON.stringify(value);
  }
  if (!isPlainObject(value)) return JSON.stringify(value);
  const { data } = value as { data?: unknown };
  if (!isPlainArray(data) || data.length === 0 || !hasStoredText(data[0])) return JSON.stringify(value);
  // The text is gathered in one list of parts and joined once: one flat string, which the host
  // measures and writes without first copying a tree of concatenations (a page is tens of KB).
  const parts: string[] = ["{"];
  for (const key of Object.keys(value)) {
    const mark = parts.length;
    if (mark > 1) parts.push(",");
    parts.push(JSON.stringify(key), ":");
    if (key === "data") {
      if (!listParts(data, parts)) return JSON.stringify(value);
      continue;
    }
    // The object's other members keep their order and their JSON.stringify form.
    const member = JSON.stringify((value as Record<string, unknown>)[key]);
    if (member === undefined) parts.length = mark; // undefined, functions and symbols are left out, as JSON.stringify does
    else parts.push(member);
  }
  parts.push("}");
  return parts.join("");
}

/**
 * Adds the array's JSON to `parts` when at least its first member has a stored text; false
 * otherwise (stringify it whole). A member without one is JSON.stringify's, unless it has a
 * `toJSON` (which JSON.stringify would call with the member's index): then the whole array is
 * left to JSON.stringify too.
 */
function listParts(items: readonly unknown[], parts: string[]): boolean {
  if (!hasStoredText(items[0])) return false;
  parts.push("[");
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(",");
    const item = items[i];
    const text = item !== null && typeof item === "object" ? storedJsonOf(item) : undefined;
    if (text !== undefined) {
      parts.push(text);
      continue;
    }
    if (item !== null && typeof item === "object" && typeof (item as { toJSON?: unknown }).toJSON === "function") return false;
    // An array member JSON.stringify cannot write (undefined, a function) is null there.
    parts.push(JSON.stringify(item) ?? "null");
  }
  parts.push("]");
  return true;
}

function hasStoredText(item: unknown): boolean {
  return item !== null && typeof item === "object" && storedJsonOf(item) !== undefined;
}

/** An array as JSON.stringify writes one member by member: no subclass, no `toJSON` of its own. */
function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype && !Object.hasOwn(value, "toJSON");
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}
