/**
 * Hostile text for input tests: where strings sit in a JSON value, and the value with a bad
 * character slipped into one of them (issue 12 item 11).
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON under test
export type Path = (string | number)[];

/** NUL and unpaired surrogates, alone and inside text. */
export const hostileCharacters = ["\u0000", "\uD800", "\uDFFF", "a\u0000b", "x\uDBFF"] as const;

/** Every place a string sits in `value`: string leaves, and member names (marked `key`). */
export function stringPlaces(value: unknown, path: Path = []): { path: Path; key: boolean }[] {
  if (typeof value === "string") return [{ path, key: false }];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringPlaces(item, [...path, i]));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([name, inner]) => [{ path: [...path, name], key: true }, ...stringPlaces(inner, [...path, name])]);
  }
  return [];
}

/** `value` with `bad` appended to the string at `path` (or to the member name there). */
export function poisoned(value: unknown, path: Path, key: boolean, bad: string): { value: unknown; path: string } {
  const copy = JSON.parse(JSON.stringify(value)) as Json;
  if (path.length === 0) return { value: `${value as string}${bad}`, path: "" };
  const parent = path.slice(0, -1).reduce<Json>((node, step) => node[step as string], copy);
  const last = path[path.length - 1]!;
  if (key) {
    const renamed = `${String(last)}${bad}`;
    const entries = Object.entries(parent).map(([name, inner]) => [name === last ? renamed : name, inner]);
    for (const name of Object.keys(parent)) delete parent[name];
    Object.assign(parent, Object.fromEntries(entries));
    return { value: copy, path: [...path.slice(0, -1), renamed].join(".") };
  }
  parent[last as string] = `${parent[last as string] as string}${bad}`;
  return { value: copy, path: path.join(".") };
}

