import { deepFreeze } from "./freeze.js";

/**
 * The JSON text a record was read from, kept beside the record so that an answer listing it can
 * write that text instead of serialising the record again (a list page's records are most of its
 * answer: on SQLite, parsing them and serialising them again cost about a fifth of a list request).
 *
 * Only a storage adapter that reads whole records as JSON text registers them (SQLite's
 * `json_object` rows, in its read units: a write unit's records are not answered as lists are, and
 * a bulk holds 100 000 of them), and it freezes each one it registers: a record with a text is never
 * changed in place, so the text stays exactly what the record holds. Every change of a record
 * builds a new object (a redacted copy, the record after a patch), which has no text and is
 * serialised as usual. The text is a non-enumerable symbol-keyed member of the record: a spread
 * or `Object.assign` copy does not take it along, JSON and `Object.keys` do not see it, and it
 * goes with its record (a WeakMap did the same, but its entries cost every garbage collection).
 */
const storedText = Symbol("casekit.storedJson");

/**
 * Registers `text` as the JSON of `record` and freezes the record and the arrays and objects it
 * holds (its custom fields, its tags…), so that nothing it answers with can be changed in place.
 * What those hold in turn (a tag's object, a multi-select value's list) is frozen only in the
 * tests (`freezeNestedStoredRecords`): freezing every level cost a list page 43 µs, more than the
 * serialising it saves, and one level 7–12 µs. With `whole`, every level is frozen: a record that
 * several requests share (adapters/sqlite/parsed-records.ts) is frozen once and then read many times.
 */
export function rememberStoredJson<T extends object>(record: T, text: string, options: { whole?: boolean } = {}): T {
  Object.defineProperty(record, storedText, { value: text });
  return deepFreeze(record, options.whole || checks.nested ? Infinity : 2);
}

/** The JSON text `value` itself was read from (not one its prototype was), or undefined when it has none. */
export function storedJsonOf(value: object): string | undefined {
  return Object.hasOwn(value, storedText) ? (value as { [storedText]: string })[storedText] : undefined;
}

const checks = { nested: false };

/** From now on, freezes each registered record's nested arrays and objects too (for tests). */
export function freezeNestedStoredRecords(): void {
  checks.nested = true;
}
