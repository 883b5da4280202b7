// checkedOrigin (core/access/claims.ts) copies a plain origin without the schema, on every keyed
// request; this holds it to the schema: for any origin, it answers what
// parse(originClaimSchema, { origin }).origin answers, or fails with the same problem.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkedOrigin, originClaimSchema } from "../../core/access/claims.js";
import type { RequestOrigin } from "../../core/access/principal.js";
import { parse } from "../../core/validation.js";

function outcome(run: () => RequestOrigin): { value: RequestOrigin } | { problem: unknown } {
  try {
    return { value: run() };
  } catch (error) {
    const { code, message, errors } = error as { code?: string; message?: string; errors?: unknown };
    return { problem: { code, message, errors } };
  }
}

const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("", "127.0.0.1", "req_01", "a\u0000b", "\uD800", "\uD83D\uDE00", "curl/8"));
const value = fc.oneof(text, fc.constant(undefined), fc.constant(null), fc.integer(), fc.boolean(), fc.array(text, { maxLength: 2 }), fc.object({ maxDepth: 1 }));
const member = fc.oneof(fc.constantFrom("requestId", "ip", "userAgent"), fc.constantFrom("origin", "__proto__", "toString", "IP", "\u0000"), fc.string({ maxLength: 3 }));
const plainOrigin = fc.dictionary(member, value, { maxKeys: 4 });
const hostOrigin = fc.record({ requestId: text, ip: text, userAgent: text }, { requiredKeys: [] });
const otherKinds = fc.oneof(fc.constant(null), fc.integer(), text, fc.array(text, { maxLength: 2 }), fc.constant(new Date(0)), fc.constant(Object.create(null) as object), fc.constant(new Map()));

describe("checkedOrigin", () => {
  it("answers as the origin claim's schema does, for any input", () => {
    fc.assert(
      fc.property(fc.oneof(hostOrigin, plainOrigin, otherKinds), (origin) => {
        const fast = outcome(() => checkedOrigin(origin as RequestOrigin));
        const schema = outcome(() => parse(originClaimSchema, { origin }).origin!);
        expect(fast).toEqual(schema);
      }),
      { numRuns: 2000 },
    );
  });

  it("gives a copy: the principal never holds the caller's object", () => {
    const origin = { requestId: "req_1", ip: "10.0.0.1", userAgent: "curl/8" };
    const checked = checkedOrigin(origin);
    expect(checked).toEqual(origin);
    expect(checked).not.toBe(origin);
  });

  it("refuses a member the claims do not know, at its path", () => {
    expect(() => checkedOrigin({ requestId: "req_1", country: "NL" } as RequestOrigin)).toThrow(expect.objectContaining({ code: "validation_failed", errors: [expect.objectContaining({ path: "origin.country" })] }));
  });
});
