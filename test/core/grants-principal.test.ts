// Item 8 of issue 12: embedding fails closed. principalFor and resolvePrincipal check their claims
// with the API's schemas, and every TLP comparison denies a value that is not a level 0–4.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { requireClearance, resolvePrincipal, withinClearance } from "../../core/index.js";
import type { Case, CaseKitError, ErrorCode, Principal, StoredUser } from "../../core/index.js";
import { makeTestKit, principalFor as handBuilt } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

async function outcome(promise: Promise<unknown>): Promise<ErrorCode | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as CaseKitError).code;
  }
}

/** Hostile numbers and non-numbers, beside every valid level. */
const hostile: unknown[] = [NaN, Infinity, -Infinity, -1, 5, 2.5, -0.5, 4.0000001, Number.MAX_SAFE_INTEGER, "4", "2", null, undefined, true, {}, [4]];
const anyValue = fc.oneof(fc.constantFrom(...hostile, 0, 1, 2, 3, 4), fc.integer({ min: -10, max: 10 }), fc.double(), fc.string({ maxLength: 3 }));
/** A test name that tells 4, "4" and [4] apart. */
const show = (v: unknown): string => (typeof v === "number" ? String(v) : JSON.stringify(v) ?? String(v));
const isLevel = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 4;

describe("a TLP comparison with hostile values (property)", () => {
  it("grants only when both are integers 0–4 and the marking is at most the clearance", () => {
    fc.assert(
      fc.property(anyValue, anyValue, (tlp, clearance) => {
        const allowed = isLevel(tlp) && isLevel(clearance) && tlp <= clearance;
        expect(withinClearance(tlp, clearance)).toBe(allowed);
        const principal = { tlpClearance: clearance } as unknown as Principal;
        let granted = true;
        try {
          requireClearance(principal, tlp as number);
        } catch (error) {
          expect((error as CaseKitError).code).toBe("tlp_restricted");
          granted = false;
        }
        expect(granted).toBe(allowed);
      }),
      { numRuns: 2000, seed: 20261124 },
    );
  });
});

describe("the one place clearances are compared", () => {
  const coreDir = new URL("../../core/", import.meta.url).pathname;
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));

  it("no core file compares a clearance with < or > itself: it calls withinClearance / visibleUpTo (core/access/clearance.ts)", () => {
    // A raw `<`/`>` with a clearance on either side, or a clearance handed to a list filter as is.
    const rawComparison = /learance\w*\s*(<=|>=|<|>)[^>]|(<=|>=|[^=]<|[^=-]>)\s*[\w.]*learance|maxTlp:\s*[\w.]*learance/;
    const offenders = sources(coreDir).filter((file) => !file.endsWith(join("access", "clearance.ts")) && rawComparison.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });
});

describe("kit.principalFor with hostile claims", () => {
  let t: TestKit;
  beforeAll(async () => {
    t = await makeTestKit();
  });

  const bad: [string, Record<string, unknown>][] = [
    ...hostile.filter((v) => v !== undefined).map((v): [string, Record<string, unknown>] => [`tlpClearance ${show(v)}`, { tlpClearance: v }]),
    ["tier godmode", { tier: "godmode" }],
    ["an unknown scope", { scopes: ["cases:read", "root:all"] }],
    ["scopes that are not a list", { scopes: "cases:read" }],
    ["an unknown field", { role: "admin" }],
    ["an organization id of the wrong kind", { organizationId: "user_00000000000000000000000000" }],
    ["a user id that is not an id", { userId: "admin" }],
  ];

  for (const [name, claims] of bad) {
    it(`${name} → validation_failed, no principal`, async () => {
      const identity = { organizationId: t.organizationId, userId: t.admin.userId, ...claims };
      expect(await outcome(t.kit.principalFor(identity as Parameters<typeof t.kit.principalFor>[0]))).toBe("validation_failed");
    });
  }

  it("valid claims still work, capped by the user", async () => {
    const amber = await t.kit.principalFor({ organizationId: t.organizationId, userId: t.admin.userId, tlpClearance: 2, tier: "basic", scopes: ["cases:read"] });
    expect({ tlp: amber.tlpClearance, tier: amber.tier, scopes: [...amber.scopes] }).toEqual({ tlp: 2, tier: "basic", scopes: ["cases:read"] });
  });

  it("resolvePrincipal, the public rule behind every credential, refuses the same claims", async () => {
    const owner = (await t.kit.storage.read((tx) => tx.users.findById(t.organizationId, t.admin.userId))) as StoredUser;
    for (const claims of [{ tlpClearance: NaN }, { tier: "godmode" }, { scopes: ["nope"] }]) {
      expect(() => resolvePrincipal(owner, { authenticatedBy: "host", ...claims } as Parameters<typeof resolvePrincipal>[1])).toThrow(
        expect.objectContaining({ code: "validation_failed" }),
      );
    }
  });
});

describe("the other credential entry points with values that are not credentials", () => {
  it("authenticateKey answers invalid_key and authenticateSession invalid_session, never a TypeError", async () => {
    const t = await makeTestKit();
    for (const value of [undefined, null, 42, {}, [], ""]) {
      expect(await outcome(t.kit.authenticateKey(value as string)), show(value)).toBe("invalid_key");
      expect(await outcome(t.kit.account.authenticateSession(value as string, { requireCsrf: false })), show(value)).toBe("invalid_session");
    }
  });
});

describe("key status actions", () => {
  it("only suspend, resume and revoke are actions: anything else is validation_failed", async () => {
    const t = await makeTestKit();
    const { id } = await t.kit.keys.create(t.admin, { name: "k", scopes: ["cases:read"] });
    for (const action of ["constructor", "toString", "__proto__", "delete", ""]) {
      expect(await outcome(t.kit.keys.changeStatus(t.admin, id, action as "revoke")), action).toBe("validation_failed");
    }
    expect((await t.kit.keys.get(t.admin, id)).status).toBe("active");
  });
});

describe("a hand-built principal with a hostile clearance sees and writes nothing", () => {
  let t: TestKit;
  const cases: Case[] = [];
  beforeAll(async () => {
    t = await makeTestKit();
    for (let tlp = 0; tlp <= 4; tlp++) cases.push(await t.kit.cases.create(t.admin, { title: `tlp ${tlp}`, severity: 2, tlp }));
  });

  for (const clearance of [NaN, Infinity, -Infinity, -1, 5, 2.5]) {
    it(`clearance ${clearance}`, async () => {
      const principal = handBuilt(t.admin, { tlpClearance: clearance });
      for (const record of cases) expect(await outcome(t.kit.cases.get(principal, record.id)), `tlp ${record.tlp}`).toBe("tlp_restricted");
      expect((await t.kit.cases.list(principal, {})).data).toEqual([]);
      expect(await outcome(t.kit.cases.create(principal, { title: "never", severity: 2, tlp: 0 }))).toBe("tlp_restricted");
    });
  }
});
