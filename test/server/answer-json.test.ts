// An answer writes a stored record's own JSON text (core/stored-json.ts) instead of serialising it
// again; what a client reads must be exactly what JSON.stringify of the value would give.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rememberStoredJson, storedJsonOf } from "../../core/stored-json.js";
import { answerJson } from "../../server/answer-json.js";

/** A record as a storage adapter reads it: parsed from its text and registered with it. */
const stored = (record: object): object => {
  const text = JSON.stringify(record);
  return rememberStoredJson(JSON.parse(text) as object, text);
};

const record = fc.record({
  id: fc.string(),
  tlp: fc.integer({ min: 0, max: 4 }),
  title: fc.string({ unit: "binary" }),
  tags: fc.array(fc.record({ name: fc.string() })),
  customFields: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))),
  closedAt: fc.option(fc.string()),
});

describe("answerJson", () => {
  it("gives JSON.stringify's text for pages mixing stored, copied and plain records", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(record, fc.constantFrom("stored", "copy", "plain"))), fc.option(fc.string()), fc.boolean(), (rows, nextCursor, cursorFirst) => {
        const data = rows.map(([row, how]) => {
          if (how === "plain") return row;
          const read = stored(row);
          // A redacted or patched record is a new object: it has no text of its own.
          return how === "copy" ? { ...read, customFields: {} } : read;
        });
        const page = cursorFirst ? { nextCursor, data } : { data, nextCursor };
        expect(answerJson(page)).toBe(JSON.stringify(page));
        expect(answerJson(data)).toBe(JSON.stringify(data));
      }),
    );
  });

  it("writes a stored record's text, even where JSON.stringify would write the same values differently", () => {
    // SQLite writes a record's JSON itself: what it writes is what the answer carries.
    const text = '{"id":"case_1","score":1.0,"note":"\\u00e9"}';
    const read = rememberStoredJson(JSON.parse(text) as object, text);
    expect(answerJson({ data: [read], nextCursor: null })).toBe(`{"data":[${text}],"nextCursor":null}`);
    expect(answerJson(read)).toBe(text);
    expect(JSON.parse(answerJson({ data: [read], nextCursor: null }))).toEqual({ data: [JSON.parse(text)], nextCursor: null });
  });

  it("leaves out undefined members and writes undefined array members as null, as JSON.stringify does", () => {
    const read = stored({ id: "a" });
    const page = { data: [read, undefined, () => 1], nextCursor: undefined, total: 2 };
    expect(answerJson(page)).toBe(JSON.stringify(page));
    expect(answerJson(undefined)).toBe(JSON.stringify(undefined));
    expect(answerJson({ data: [], nextCursor: null })).toBe('{"data":[],"nextCursor":null}');
  });

  it("uses a record's own text only: not one its prototype has, and not past a toJSON JSON.stringify would call", () => {
    const read = stored({ id: "a", secret: "x" });
    const derived = Object.create(read, { id: { value: "b", enumerable: true } }) as object;
    expect(answerJson({ data: [read, derived], nextCursor: null })).toBe(JSON.stringify({ data: [read, derived], nextCursor: null }));
    expect(answerJson(derived)).toBe(JSON.stringify(derived));
    const withToJson = { id: "c", toJSON: (key: string) => ({ at: key }) };
    expect(answerJson({ data: [read, withToJson] })).toBe(JSON.stringify({ data: [read, withToJson] }));
    class Page extends Array<unknown> {
      toJSON() {
        return "a page";
      }
    }
    const page = Page.from([read]) as Page;
    expect(answerJson({ data: page })).toBe(JSON.stringify({ data: page }));
    expect(answerJson(page)).toBe(JSON.stringify(page));
  });

  it("freezes a stored record, so its text cannot go stale; in the tests its nested values too", () => {
    const read = stored({ id: "a", customFields: { secret: "x" }, tags: [{ name: "t" }] }) as { id: string; customFields: Record<string, unknown>; tags: { name: string }[] };
    expect(() => {
      read.id = "b";
    }).toThrow(TypeError);
    expect(() => {
      read.customFields = {};
    }).toThrow(TypeError);
    // Production freezes the record and the arrays and objects it holds; test/helpers/
    // freeze-stored-records.ts makes every test freeze what those hold too (a tag's object).
    expect(() => {
      read.customFields.secret = "y";
    }).toThrow(TypeError);
    expect(() => {
      delete read.customFields.secret;
    }).toThrow(TypeError);
    expect(() => read.tags.push({ name: "u" })).toThrow(TypeError);
    expect(() => {
      read.tags[0]!.name = "u";
    }).toThrow(TypeError);
    expect(storedJsonOf(read)).toBe('{"id":"a","customFields":{"secret":"x"},"tags":[{"name":"t"}]}');
  });
});
