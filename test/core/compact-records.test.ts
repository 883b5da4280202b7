import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compactRecords, recordsOf } from "../../core/log/compact-records.js";

/** What storing a value as JSON text and reading it back gives. */
const throughJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** PostgreSQL jsonb's key order: shorter keys first, then by bytes. */
const jsonbOrder = (keys: string[]): string[] => [...keys].sort((a, b) => a.length - b.length || (Buffer.from(a) < Buffer.from(b) ? -1 : Buffer.from(a) > Buffer.from(b) ? 1 : 0));

/** `value` with every object's keys in jsonb's order: what a jsonb column hands back. */
function asJsonb(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asJsonb);
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(jsonbOrder(Object.keys(object)).map((key) => [key, asJsonb(object[key])]));
}

const key = fc.string({ minLength: 1, maxLength: 5 }).filter((k) => k !== "__proto__");
const leaf = fc.oneof(fc.constantFrom(null, "same", 0, true), fc.string({ maxLength: 4 }), fc.integer(), fc.array(fc.integer(), { maxLength: 2 }), fc.constant({}));

/** A shape: a leaf or an object of shapes; items are drawn to fit it, some not (a null, a missing key). */
type Shape = "leaf" | [string, Shape][];
const shape: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.constant("leaf" as const), fc.uniqueArray(fc.tuple(key, tie("shape")), { minLength: 1, maxLength: 3, selector: ([k]) => k })),
})).shape;
const fitting = (s: Shape): fc.Arbitrary<unknown> => (s === "leaf" ? leaf : fc.tuple(...s.map(([, inner]) => fitting(inner))).map((values) => Object.fromEntries(s.map(([k], i) => [k, values[i]]))));
const items = shape.chain((s) => fc.array(fc.oneof({ weight: 9, arbitrary: fitting(s) }, { weight: 1, arbitrary: leaf }), { minLength: 0, maxLength: 8 }));
// Items of two shapes mixed, which often agree at the top and differ deeper down (a key more or
// fewer, a leaf where an object was, another order): each item is checked against the first's shape.
const fewKeys = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.constant("leaf" as const), fc.uniqueArray(fc.tuple(fc.constantFrom("a", "b", "c"), tie("shape")), { minLength: 1, maxLength: 3, selector: ([k]) => k })),
})).shape;
const mixed = fc.tuple(fewKeys, fewKeys).chain(([a, b]) => fc.array(fc.oneof(fitting(a), fitting(b)), { minLength: 1, maxLength: 8 }));

describe("group items stored by column, any shape (audit and TLP items)", () => {
  it("decode to exactly the items encoded, key order included, through JSON text", () => {
    fc.assert(
      fc.property(items, (drawn) => {
        const decoded = recordsOf(throughJson(compactRecords(drawn)));
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(drawn));
      }),
    );
  });

  it("decode to exactly the items encoded when items of two shapes are mixed", () => {
    fc.assert(
      fc.property(mixed, (drawn) => {
        const decoded = recordsOf(throughJson(compactRecords(drawn)));
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(drawn));
        expect(JSON.stringify(recordsOf(asJsonb(throughJson(compactRecords(drawn, jsonbOrder))) as ReturnType<typeof compactRecords>))).toBe(JSON.stringify(asJsonb(throughJson(drawn))));
      }),
      { numRuns: 500 },
    );
  });

  it("with PostgreSQL's key order: decode to what the plain array reads back as from jsonb", () => {
    fc.assert(
      fc.property(items, (drawn) => {
        const stored = asJsonb(throughJson(compactRecords(drawn, jsonbOrder))) as ReturnType<typeof compactRecords>;
        expect(JSON.stringify(recordsOf(stored))).toBe(JSON.stringify(asJsonb(throughJson(drawn))));
      }),
    );
  });

  it("writes what every record shares once: a bulk's audit items keep only their ids per record", () => {
    const audit = Array.from({ length: 1000 }, (_, i) => ({ resourceId: `alert_${i}`, changes: { assigneeId: { from: null, to: "user_x" } } }));
    const stored = compactRecords(audit);
    expect(stored).toEqual({
      compact: 2,
      count: 1000,
      shape: { keys: ["resourceId", "changes"], of: [0, { keys: ["assigneeId"], of: [{ keys: ["from", "to"], of: [0, 0] }] }] },
      columns: [{ each: audit.map((item) => item.resourceId) }, { same: null }, { same: "user_x" }],
    });
    expect(JSON.stringify(stored).length).toBeLessThan(JSON.stringify(audit).length / 3);
  });

  it("keeps items it cannot hold exactly by column as the plain array: an undefined member, differing keys, a toJSON", () => {
    const withUndefined = [{ a: 1, b: undefined }];
    const differing = [{ a: 1 }, { b: 1 }];
    const reordered = [{ a: 1, b: 2 }, { b: 2, a: 1 }];
    const dated = [{ at: new Date(0) }];
    for (const plain of [withUndefined, differing, reordered, dated] as unknown[][]) expect(compactRecords(plain)).toEqual(plain);
  });
});
