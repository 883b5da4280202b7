import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compactEventItems, compactEventItemsInSteps } from "../../core/log/compact-items.js";
import type { EventItem } from "../../core/events/types.js";
import { encodeValue } from "../../adapters/declare/rows.js";
import { jsonInSlices, JsonText } from "../../adapters/shared/json-in-slices.js";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const jsonColumn = { kind: "json" } as Parameters<typeof encodeValue>[0];

describe("JSON written in slices", () => {
  it("is exactly JSON.stringify's text, for any JSON value, large arrays and undefined members included", async () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), fc.constant(undefined)),
      node: fc.oneof({ depthSize: "small" }, tie("leaf"), fc.array(tie("node"), { maxLength: 5 }), fc.dictionary(fc.string(), tie("node"), { maxKeys: 5 })),
    })).node;
    await fc.assert(
      fc.asyncProperty(value, fc.integer({ min: 0, max: 2500 }), async (small, copies) => {
        // A long array of the same value crosses the piece size: pieces are joined as one array.
        const large = { small, items: Array.from({ length: copies }, (_, i) => (i % 7 === 3 ? undefined : { i, small })) };
        for (const v of [small, large, [small], large.items]) {
          const expected = JSON.stringify(v) ?? "null";
          expect((await jsonInSlices(v)).text).toBe(expected);
        }
      }),
      { numRuns: 150 },
    );
    const dated = { at: new Date(0), list: Array.from({ length: 1200 }, () => new Date(1)) };
    expect((await jsonInSlices(dated)).text).toBe(JSON.stringify(dated));
  });

  it("gives the event loop a turn while it writes a large value: a timer due meanwhile fires before it ends", async () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({ resourceId: `alert_${i}`, changes: { assigneeId: { from: null, to: "user_1" } } }));
    const order: string[] = [];
    setTimeout(() => order.push("timer"), 0);
    const written = await jsonInSlices(items, turn);
    order.push("written");
    expect(order).toEqual(["timer", "written"]);
    expect(written.text).toBe(JSON.stringify(items));
  });

  it("a JSON column binds text written in slices as it is", () => {
    expect(encodeValue(jsonColumn, new JsonText('{"a":1}'))).toBe('{"a":1}');
    expect(encodeValue(jsonColumn, { a: 1 })).toBe('{"a":1}');
  });
});

describe("a group event's items compacted in steps", () => {
  it("gives what compactEventItems gives, pausing between steps", async () => {
    const items: EventItem[] = Array.from({ length: 30_000 }, (_, i) => ({ resourceId: `task_${i}`, tlp: 2, payload: { id: `task_${i}`, title: "Same", number: i, assigneeId: null } }));
    let pauses = 0;
    const stepped = await compactEventItemsInSteps(items, undefined, async () => {
      pauses += 1;
    });
    expect(stepped).toEqual(compactEventItems(items));
    expect(pauses).toBeGreaterThan(5);
    const irregular = [items[0]!, { resourceId: "x", tlp: null, payload: { other: 1 } }];
    expect(await compactEventItemsInSteps(irregular, undefined, turn)).toEqual(compactEventItems(irregular));
  });
});
