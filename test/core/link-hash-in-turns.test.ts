/**
 * A log link's hash computed in pieces between event-loop turns (linkHashInTurns: a bulk's group
 * entry, one item per record) is the hash computed in one go (linkHash), for any fields: stored
 * hashes stay valid whichever way a writer computed them, and verify recomputes them alike.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MappedField, canonicalJson, linkHash, linkHashInTurns } from "../../core/log/chain.js";
import { createHash } from "node:crypto";

// JSON-like values with what JSON.stringify treats specially: undefined (dropped from objects,
// null in arrays), integer-like keys (enumerated first), nested arrays and objects.
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
  node: fc.oneof({ depthSize: "small" }, tie("leaf"), fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String)), tie("node"), { maxKeys: 4 })),
})).node;

/** How the hashes were first computed: JSON.stringify handing on every object with its keys sorted. */
const reference = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );

// Keys that enumerate first (array indices) beside ones that look alike but do not.
const key = fc.oneof(fc.string(), fc.nat().map(String), fc.constantFrom("0", "01", "-1", "1.5", "4294967294", "4294967295", "99999999999", "1e3", "__proto__x", "é", "\u{1F600}"));
const anyValue = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(-0), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.date({ noInvalidDate: true })),
  node: fc.oneof({ depthSize: "small" }, tie("leaf"), fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(key, tie("node"), { maxKeys: 5 })),
})).node;

describe("canonical JSON", () => {
  it("is, for any value, what JSON.stringify with a key-sorting replacer writes", () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("canonical JSON's remembered member names", () => {
  it("writes members past the bound of names it remembers as it writes the rest", () => {
    // More distinct names than are remembered, escapes among them, each seen twice.
    const names = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? `q"${i}\\` : `field_${i}`));
    const wide = Object.fromEntries(names.map((name, i) => [name, { [name]: i }]));
    expect(canonicalJson(wide)).toBe(reference(wide));
    expect(canonicalJson([wide, wide])).toBe(reference([wide, wide]));
  });
});

describe("a link's hash in turns", () => {
  it("is the hash of canonicalJson([prevHash, ...fields]) in one go, for any fields", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.array(value, { maxLength: 6 }), async (prevHash, fields) => {
        const whole = createHash("sha256").update(canonicalJson([prevHash, ...fields])).digest("hex");
        expect(linkHash(prevHash, fields)).toBe(whole);
        expect(await linkHashInTurns(prevHash, fields, () => Promise.resolve())).toBe(whole);
        expect(await linkHashInTurns(prevHash, fields, () => undefined)).toBe(whole);
      }),
      { numRuns: 300 },
    );
  });

  it("hashes a MappedField exactly as the array its elements make, for any list and fields around it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.array(value, { maxLength: 3 }), fc.array(value, { maxLength: 8 }), fc.array(value, { maxLength: 3 }), async (prevHash, before, list, after) => {
        const element = (item: unknown) => [item, typeof item, null];
        const whole = linkHash(prevHash, [...before, list.map(element), ...after]);
        expect(await linkHashInTurns(prevHash, [...before, new MappedField(list, element), ...after], () => Promise.resolve())).toBe(whole);
      }),
      { numRuns: 300 },
    );
  });

  it("asks for a turn every 32 pieces of a large field, and takes those offered", async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => [`task_${i}`, null, 1, [{ path: "status", before: "waiting", after: "in_progress" }]]);
    let asked = 0;
    let taken = 0;
    const hash = await linkHashInTurns("prev", ["aud_1", items], () => (asked++ % 100 === 99 ? Promise.resolve().then(() => void taken++) : undefined));
    expect(hash).toBe(linkHash("prev", ["aud_1", items]));
    // The pieces: the opening, a comma, "aud_1", a comma, "[", 10 000 elements and the 9 999 commas
    // between them, "]" and the close: 20 006, so 625 asks (a clock read each in a unit's breather).
    expect(asked).toBe(Math.floor(20_006 / 32));
    expect(taken).toBe(6);
  });
});
