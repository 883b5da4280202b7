// rememberBounded keeps exactly what a plain most-recently-used list of at most `max` keys keeps,
// whatever else the map's owner does between inserts (looks, deletes, clears) (core/bounded-map.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rememberBounded } from "../../core/bounded-map.js";

type Step = { kind: "remember"; key: number } | { kind: "delete"; key: number } | { kind: "clear" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant("remember" as const), key: fc.integer({ min: 0, max: 15 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 15 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "clear" as const }) },
);

describe("rememberBounded", () => {
  it("keeps the most recently remembered keys, oldest first, at most max, through deletes and clears", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.array(step, { maxLength: 200 }), (max, steps) => {
        const map = new Map<number, number>();
        let reference: number[] = [];
        steps.forEach((s, i) => {
          if (s.kind === "clear") {
            map.clear();
            reference = [];
            return;
          }
          map.delete(s.key);
          reference = reference.filter((key) => key !== s.key);
          if (s.kind === "remember") {
            rememberBounded(map, s.key, i, max);
            if (max > 0) reference = [...reference, s.key].slice(-max);
          }
          expect([...map.keys()]).toEqual(reference);
        });
      }),
    );
  });
});
