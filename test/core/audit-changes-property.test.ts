// diffChanges (core/audit/changes.ts) against the rule it implements, stated plainly: one entry per
// changed leaf, plain objects walked into (a key either side has), arrays and scalars compared
// whole by their canonical JSON, `updatedAt` of the record itself never listed, in the order of
// the after record's keys and then the keys only the before record has.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffChanges } from "../../core/audit/changes.js";
import { canonicalJson } from "../../core/log/chain.js";
import { isSecretPath, maskedValue, maskSecrets } from "../../core/audit/secrets.js";
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

/** The rule of secrets.ts, stated plainly, judged afresh every time. */
const secretByRule = (path: string): boolean => path.split(".").some((segment) => /(hash|secret|token|password)$/i.test(segment) || /^authconfig$/i.test(segment));

describe("secret paths, judged once and remembered", () => {
  it("are judged by the rule every time, before and after the paths remembered reach their bound", () => {
    const seen = ["secret", "keyHash", "customFields.apiToken", "authConfig.header", "secretStart", "title", "customFields.x"];
    for (const path of seen) expect(isSecretPath(path)).toBe(secretByRule(path));
    // Past the bound (4096 paths remembered), new paths are judged each time, and alike.
    for (let i = 0; i < 5000; i++) expect(isSecretPath(`customFields.f${i}${i % 3 === 0 ? "Password" : ""}`)).toBe(i % 3 === 0);
    for (const path of seen) expect(isSecretPath(path)).toBe(secretByRule(path));
    fc.assert(fc.property(fc.array(fc.constantFrom("a", "token", "Hash", "authconfig", "x", "password1", "."), { maxLength: 4 }).map((parts) => parts.join(".")), (path) => isSecretPath(path) === secretByRule(path)));
  });

  it("mask what they hold in a new list and leave the caller's alone; a list without one is answered as it is", () => {
    const plain: AuditChange[] = [{ path: "title", before: "a", after: "b" }];
    expect(maskSecrets(plain)).toBe(plain);
    const secret: AuditChange[] = [{ path: "title", before: "a", after: "b" }, { path: "secret", before: null, after: "s3cr3t" }];
    const masked = maskSecrets(secret);
    expect(masked).not.toBe(secret);
    expect(masked).toEqual([{ path: "title", before: "a", after: "b" }, { path: "secret", before: null, after: maskedValue }]);
    expect(secret[1]!.after).toBe("s3cr3t");
  });
});
