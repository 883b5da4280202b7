// inputProblems (core/schema/well-formed.ts) walks every input without allocating per value; this
// holds it to the rule, spelled out plainly: every string value or member name with NUL or a lone
// surrogate, and every container past the depth limit, is reported at its path, and nothing else.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inputProblems, isWellFormedText, maxInputDepth } from "../../core/schema/well-formed.js";

/** The rule as a plain recursive reading: "path|kind" for each place that breaks it. */
function expected(value: unknown, path: string[] = [], depth = 0, out: string[] = []): string[] {
  if (typeof value === "string") {
    if (!isWellFormedText(value)) out.push(`${path.join(".")}|value`);
    return out;
  }
  if (value === null || typeof value !== "object") return out;
  if (depth >= maxInputDepth) {
    out.push(`${path.join(".")}|depth`);
    return out;
  }
  if (Array.isArray(value)) value.forEach((item, i) => expected(item, [...path, String(i)], depth + 1, out));
  else
    for (const [key, inner] of Object.entries(value)) {
      if (!isWellFormedText(key)) out.push(`${[...path, key].join(".")}|name`);
      expected(inner, [...path, key], depth + 1, out);
    }
  return out;
}

const text = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom("\u0000", "a\uD800b", "\uDC00", "ok", "x\u0000y", "\uD83D\uDE00"));
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: "small" },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("tree"), { maxLength: 4 }),
    fc.dictionary(text, tie("tree"), { maxKeys: 4 }),
  ),
}));

function nested(levels: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

describe("inputProblems", () => {
  it("property: reports exactly the places that break the rule (at most 20 of them)", () => {
    fc.assert(
      fc.property(fc.oneof(tree, tree.map((t) => nested(maxInputDepth - 2, t))), (input) => {
        const want = expected(input);
        const got = inputProblems(input).map((p) => `${p.path}|${p.message.startsWith("its name") ? "name" : p.message.startsWith("nests") ? "depth" : "value"}`);
        if (want.length <= 20) expect([...got].sort()).toEqual([...want].sort());
        else {
          expect(got).toHaveLength(20);
          for (const place of got) expect(want).toContain(place);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("stops at the depth limit, for a cyclic object too", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(inputProblems(cyclic)).toEqual([{ path: Array(maxInputDepth).fill("self").join("."), message: `nests deeper than ${maxInputDepth} levels of objects and arrays` }]);
    expect(inputProblems(nested(maxInputDepth, "fine"))).toEqual([]);
    expect(inputProblems(nested(maxInputDepth + 1, "fine"))).toHaveLength(1);
  });
});
