/**
 * JSON text for a large value (a group log row's items: 100 000 records' worth) written a piece at
 * a time, with the event loop given a turn between pieces: `JSON.stringify` of such a value is one
 * synchronous stretch of tens of milliseconds, during which no other request can be accepted or
 * answered. The text is exactly what `JSON.stringify(value)` gives for plain JSON data (objects,
 * arrays, strings, numbers, booleans, null; a value with `toJSON` is written whole by it).
 */

/** Array elements per `JSON.stringify` call: a few hundred microseconds of work each. */
const elementsPerPiece = 500;

/** The longest stretch (ms) spent serialising before the event loop gets a turn. */
export const defaultSerialiseSliceMs = 2;

/** A JSON column's value already written as JSON text: encodeValue (declare/rows.ts) binds the text as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Resolves after one event-loop turn once `sliceMs` have passed since the last turn; at once otherwise. */
export function breather(sliceMs = defaultSerialiseSliceMs): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

/** `value` as JSON text, written in pieces, with `breathe` awaited between them. */
export async function jsonInSlices(value: unknown, breathe: () => Promise<void> = breather()): Promise<JsonText> {
  const parts: string[] = [];
  await write(value, parts, breathe);
  return new JsonText(parts.join(""));
}

async function write(value: unknown, parts: string[], breathe: () => Promise<void>): Promise<void> {
  if (value === null || typeof value !== "object" || typeof (value as { toJSON?: unknown }).toJSON === "function") {
    parts.push(JSON.stringify(value) ?? "null");
    return;
  }
  if (Array.isArray(value)) {
    if (value.length <= elementsPerPiece) {
      // Short: its elements may still be large (a group event's columns), so each is written on its own.
      parts.push("[");
      for (let index = 0; index < value.length; index++) {
        if (index > 0) parts.push(",");
        const element: unknown = value[index];
        // As JSON.stringify writes an array's undefined, function or symbol element.
        if (element === undefined || typeof element === "function" || typeof element === "symbol") parts.push("null");
        else await write(element, parts, breathe);
      }
      parts.push("]");
      return;
    }
    parts.push("[");
    for (let start = 0; start < value.length; start += elementsPerPiece) {
      const piece = JSON.stringify(value.slice(start, start + elementsPerPiece));
      if (start > 0) parts.push(",");
      parts.push(piece.slice(1, -1));
      await breathe();
    }
    parts.push("]");
    return;
  }
  parts.push("{");
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    // As JSON.stringify leaves out an object's undefined, function or symbol member.
    if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
    if (!first) parts.push(",");
    first = false;
    parts.push(JSON.stringify(key), ":");
    await write(member, parts, breathe);
  }
  parts.push("}");
}

/** Items at which a group row's items are written in slices rather than in one `JSON.stringify`. */
const sliceFromItems = 1000;

/**
 * A group log row's items as its JSON column takes them: as they are when few, else written in
 * slices (jsonInSlices). Typed as the column's value: only encodeValue ever looks inside.
 */
export async function groupItemsColumn<T>(items: T, count: number): Promise<T> {
  if (count < sliceFromItems) return items;
  return (await jsonInSlices(items)) as unknown as T;
}
