import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cappedByKey } from "../../core/access/grants.js";
import { allScopes } from "../../core/index.js";

const rights = fc.record({ scopes: fc.uniqueArray(fc.constantFrom(...allScopes)), tlpClearance: fc.integer({ min: 0, max: 4 }) });

describe("cappedByKey: recorded rights capped by their key's current ones (audit streams, webhook and sink grants)", () => {
  it("keeps only scopes both hold, in the recorded order, and the lower clearance: never more than either", () => {
    fc.assert(
      fc.property(rights, rights, (recorded, key) => {
        const capped = cappedByKey(recorded, key);
        expect(capped.scopes).toEqual(recorded.scopes.filter((scope) => key.scopes.includes(scope)));
        expect(capped.tlpClearance).toBe(Math.min(recorded.tlpClearance, key.tlpClearance));
      }),
    );
  });

  it("without a key, the recorded rights as they are", () => {
    fc.assert(
      fc.property(rights, (recorded) => {
        expect(cappedByKey({ ...recorded, scopes: new Set(recorded.scopes) }, null)).toEqual(recorded);
      }),
    );
  });
});
