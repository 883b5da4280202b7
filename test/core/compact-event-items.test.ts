import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EventItem } from "../../core/index.js";
import { compactEventItems, eventItemsOf } from "../../core/log/compact-items.js";

/** What storing a value as JSON text and reading it back gives. */
const throughJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const value = fc.oneof(
  fc.constantFrom(null, "same", 0, 1, true, false),
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.oneof(fc.integer(), fc.constant(null)), { maxKeys: 2 }),
);

/** Records of one shape (as a bulk's are): the same keys in the same order, values drawn per record. */
const regularItems = fc
  .uniqueArray(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== "__proto__" && k !== "id"), { minLength: 0, maxLength: 6 })
  .chain((keys) =>
    fc.array(
      fc.record({
        id: fc.string({ minLength: 1, maxLength: 5 }),
        tlp: fc.oneof(fc.constantFrom(0, 1, 2), fc.constant(null)),
        values: fc.tuple(...keys.map(() => value)),
        otherId: fc.boolean(),
      }),
      { minLength: 1, maxLength: 8 },
    ).map((records) =>
      records.map(({ id, tlp, values, otherId }): EventItem => {
        const payload: Record<string, unknown> = { id };
        keys.forEach((key, index) => (payload[key] = values[index]));
        return { resourceId: otherId ? `${id}x` : id, tlp, payload };
      }),
    ),
  );

/**
 * Records of any shape: keys drawn from a small pool in any order and number (often the same as a
 * neighbour's, sometimes not), values that may be undefined, and payloads whose prototype may
 * carry an enumerable key of its own (which JSON leaves out, and so must the columns).
 */
const anyItems = fc.array(
  fc.record({
    id: fc.constantFrom("a", "b", "c"),
    keys: fc.oneof(fc.constant<string[]>(["x", "y"]), fc.shuffledSubarray(["x", "y", "z", "0"])),
    values: fc.tuple(fc.option(value, { nil: undefined }), value, value, value),
    inherited: fc.boolean(),
  }),
  { minLength: 1, maxLength: 6 },
).map((records) =>
  records.map(({ id, keys, values, inherited }): EventItem => {
    const payload: Record<string, unknown> = Object.create(inherited ? { extra: 1 } : Object.prototype);
    payload.id = id;
    keys.forEach((key, index) => (payload[key] = values[index]));
    return { resourceId: id, tlp: 1, payload };
  }),
);

describe("group event items stored by column", () => {
  it("decode to exactly the items encoded, keys in order, through JSON text", () => {
    fc.assert(
      fc.property(regularItems, (items) => {
        const decoded = eventItemsOf(throughJson(compactEventItems(items)));
        // Byte for byte: what a webhook body serialises from a payload is the same.
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(throughJson(items)));
      }),
    );
  });

  it("decode records of any shape to exactly what they are as JSON, by column only when every record has the first one's own keys", () => {
    fc.assert(
      fc.property(anyItems, (items) => {
        const stored = compactEventItems(items);
        expect(JSON.stringify(eventItemsOf(throughJson(stored)))).toBe(JSON.stringify(throughJson(items)));
        const shapes = new Set(items.map(({ payload }) => JSON.stringify(Object.keys(payload))));
        const regular = shapes.size === 1 && items.every(({ payload }) => Object.getPrototypeOf(payload) === Object.prototype && Object.values(payload).every((v) => v !== undefined));
        expect(Array.isArray(stored)).toBe(!regular);
      }),
    );
  });

  it("decode in the key order the database gives back when it reorders keys (jsonb)", () => {
    const jsonbOrder = (keys: string[]) => [...keys].sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const asJsonb = (payload: Record<string, unknown>) => Object.fromEntries(jsonbOrder(Object.keys(payload)).map((key) => [key, payload[key]]));
    fc.assert(
      fc.property(regularItems, (items) => {
        const decoded = eventItemsOf(throughJson(compactEventItems(items, jsonbOrder)));
        expect(JSON.stringify(decoded.map((item) => item.payload))).toBe(JSON.stringify(items.map((item) => asJsonb(throughJson(item.payload)))));
      }),
    );
  });

  it("store a value every record shares once, and what differs per record", () => {
    const items: EventItem[] = [1, 2, 3].map((n) => ({ resourceId: `task_${n}`, tlp: 1, payload: { id: `task_${n}`, assigneeId: "user_a", order: n } }));
    expect(compactEventItems(items)).toEqual({
      compact: 1,
      count: 3,
      resourceIds: null,
      tlp: { same: 1 },
      keys: ["id", "assigneeId", "order"],
      columns: [{ each: ["task_1", "task_2", "task_3"] }, { same: "user_a" }, { each: [1, 2, 3] }],
    });
  });

  it("keep records of different shapes, or with an undefined value, one by one, and read older plain rows", () => {
    const shapes: EventItem[] = [
      { resourceId: "a", tlp: 1, payload: { id: "a", x: 1 } },
      { resourceId: "b", tlp: 1, payload: { x: 2, id: "b" } },
    ];
    expect(compactEventItems(shapes)).toEqual(shapes);
    const undefinedValue: EventItem[] = [{ resourceId: "a", tlp: 1, payload: { id: "a", x: undefined } }];
    expect(compactEventItems(undefinedValue)).toEqual(undefinedValue);
    expect(eventItemsOf(shapes)).toEqual(shapes);
  });
});
