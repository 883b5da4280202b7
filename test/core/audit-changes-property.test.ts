// diffChanges (core/audit/changes.ts) against the rule it implements, stated plainly: one entry per
// changed leaf, plain objects walked into (a key either side has), arrays and scalars compared
// whole by their canonical JSON, `updatedAt` of the record itself never listed, in the order of
// the after record's keys and then the keys only the before record has.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffChanges } from "../../core/audit/changes.js";
import { canonicalJson } from "../../core/log/chain.js";
import { maskSecrets } from "../../core/audit/secrets.js";
import type { AuditChange } from "../../core/audit/types.js";

const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function expected(a: Record<string, unknown>, b: Record<string, unknown>, prefix = ""): AuditChange[] {
  const keys = [...Object.keys(b), ...Object.keys(a).filter((k) => !(k in b) && prefix !== "")];
  const out: AuditChange[] = [];
  for (const key of keys) {
    if (prefix === "" && key === "updatedAt") continue;
    const x = a[key];
    const y = b[key];
    if (x === y) continue;
    if (isPlain(x) && isPlain(y)) {
      out.push(...expected(x, y, `${prefix}${key}.`));
      continue;
    }
    if (x !== null && y !== null && typeof x === "object" && typeof y === "object" && canonicalJson(x) === canonicalJson(y)) continue;
    if (x === undefined && y === undefined) continue;
    out.push({ path: prefix + key, before: x ?? null, after: y ?? null });
  }
  return out;
}

const key = fc.constantFrom("id", "title", "assigneeId", "updatedAt", "tags", "customFields", "a", "b", "secret", "nested");
const leaf = fc.oneof(fc.constant(null), fc.integer({ min: -3, max: 3 }), fc.constantFrom("x", "y"), fc.array(fc.constantFrom(1, 2), { maxLength: 2 }));
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("object")),
  object: fc.dictionary(key, tie("value"), { maxKeys: 4 }),
})).object as fc.Arbitrary<Record<string, unknown>>;

describe("diffChanges", () => {
  it("lists exactly the changed leaves, in order, whatever the two records hold", () => {
    fc.assert(
      fc.property(value, value, fc.boolean(), (before, changes, share) => {
        // Half the cases change a copy of `before` (shared nested objects, as a bulk's apply does).
        const after = share ? { ...before, ...changes } : changes;
        expect(diffChanges(before, after)).toEqual(maskSecrets(expected(before, after)));
      }),
      { numRuns: 2000 },
    );
  });
});
