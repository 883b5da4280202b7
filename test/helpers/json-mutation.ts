/**
 * Mutations of a JSON value, for fuzzing what a schema refuses: drop a member, add an unknown
 * one, change a leaf's type, push a number past any bound, lengthen a string, slip in a NUL or a
 * lone surrogate, nest far too deep. A mutation may leave the value valid (dropping an optional
 * member); the caller decides validity with the schema's validator, not by the mutation's name.
 */
import fc from "fast-check";

type Json = unknown;
type Path = (string | number)[];

/** Every path to a value inside `value` (the root included). */
function pathsOf(value: Json, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...path, i], out));
  else if (value !== null && typeof value === "object") for (const [key, inner] of Object.entries(value)) pathsOf(inner, [...path, key], out);
  return out;
}

function at(value: Json, path: Path): Json {
  return path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key], value);
}

/** A copy of `value` with the node at `path` replaced by `change(node)` (undefined deletes a member). */
function replaced(value: Json, path: Path, change: (node: Json) => Json): Json {
  if (path.length === 0) return change(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? replaced(item, rest, change) : item));
  const copy: Record<string, Json> = { ...(value as Record<string, Json>) };
  const next = rest.length === 0 ? change(copy[head as string]) : replaced(copy[head as string], rest, change);
  if (next === undefined) delete copy[head as string];
  else copy[head as string] = next;
  return copy;
}

const deep = (levels: number): Json => {
  let node: Json = 1;
  for (let i = 0; i < levels; i++) node = { n: node };
  return node;
};

const changes: readonly ((node: Json, pick: number) => Json)[] = [
  () => undefined, // drop the member
  (node) => (node !== null && typeof node === "object" && !Array.isArray(node) ? { ...node, zzUnknownMember: 1 } : node),
  (node) => (typeof node === "string" ? 12345 : typeof node === "number" ? String(node) : typeof node === "boolean" ? "yes" : "text"),
  (node) => (typeof node === "number" ? (node >= 0 ? 1e21 : -1e21) : null),
  (node) => (typeof node === "number" ? node + 0.5 : []),
  (node) => (typeof node === "string" ? node + "x".repeat(100_001) : {}),
  (node, pick) => (typeof node === "string" ? `${node}${pick % 2 ? "\u0000" : "\uD800"}` : node),
  () => deep(40),
  (node) => (Array.isArray(node) ? [...node, ...node, ...node, ...Array.from({ length: 1001 }, (_, i) => i)] : node),
];

/** One mutation of `value`, at a random place, as it travels (JSON text: a dropped array item becomes null). */
export function mutationOf(value: Json): fc.Arbitrary<Json> {
  const paths = pathsOf(value);
  return fc
    .tuple(fc.integer({ min: 0, max: paths.length - 1 }), fc.integer({ min: 0, max: changes.length - 1 }), fc.nat())
    .map(([where, which, pick]) => {
      const path = paths[where]!;
      const change = changes[which]!;
      const mutated = path.length === 0 ? (which === 0 ? {} : change(at(value, path), pick)) : replaced(value, path, (node) => change(node, pick));
      return JSON.parse(JSON.stringify(mutated ?? null)) as Json;
    });
}
