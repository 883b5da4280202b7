import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { scopesOfRole, userRoles } from "../../core/index.js";
import type { Case, ErrorCode, KeyStatus, Scope, UserRole, UserStatus } from "../../core/index.js";
import { addKey, addOrganization, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

/**
 * The access rule as a small reference model: what the answer to a request must be, given the
 * key, its owner, the record and the action. The service's real decision must always equal it.
 */
type Action = "get" | "update" | "list" | "create";

interface Scenario {
  keyStatus: KeyStatus;
  expired: boolean;
  ownerStatus: UserStatus;
  role: UserRole;
  keyScopes: Scope[];
  keyTlp: number;
  ownerTlp: number;
  recordTlp: number;
  ownOrganization: boolean;
  action: Action;
}

function expected(s: Scenario): ErrorCode | "ok" | "hidden" {
  if (s.keyStatus === "revoked") return "key_revoked";
  if (s.keyStatus === "suspended") return "key_suspended";
  if (s.expired) return "key_expired";
  if (s.ownerStatus !== "active") return "owner_inactive";
  const effective = s.keyScopes.filter((x) => scopesOfRole[s.role].includes(x));
  const needed: Scope = s.action === "get" || s.action === "list" ? "cases:read" : "cases:write";
  if (!effective.includes(needed)) return "missing_scope";
  const clearance = Math.min(s.keyTlp, s.ownerTlp);
  if (s.action === "create") return s.recordTlp > clearance ? "tlp_restricted" : "ok";
  if (s.action === "list") return !s.ownOrganization || s.recordTlp > clearance ? "hidden" : "ok";
  if (!s.ownOrganization) return "not_found";
  return s.recordTlp > clearance ? "tlp_restricted" : "ok";
}

const caseScopes: Scope[] = ["cases:read", "cases:write", "alerts:read", "users:read"];

const scenario = fc.record<Scenario>({
  keyStatus: fc.constantFrom<KeyStatus>("active", "active", "active", "suspended", "revoked"),
  expired: fc.constantFrom(false, false, false, true),
  ownerStatus: fc.constantFrom<UserStatus>("active", "active", "active", "disabled", "locked", "deleted"),
  role: fc.constantFrom<UserRole>(...userRoles),
  keyScopes: fc.subarray(caseScopes),
  keyTlp: fc.integer({ min: 0, max: 4 }),
  ownerTlp: fc.integer({ min: 0, max: 4 }),
  recordTlp: fc.integer({ min: 0, max: 4 }),
  ownOrganization: fc.boolean(),
  action: fc.constantFrom<Action>("get", "update", "list", "create"),
});

describe("the access rule (property)", () => {
  let t: TestKit;
  const records = new Map<string, Case>();

  beforeAll(async () => {
    t = await makeTestKit();
    const other = await addOrganization(t.kit, "Elsewhere");
    for (let tlp = 0; tlp <= 4; tlp++) {
      records.set(`own:${tlp}`, await t.kit.cases.create(t.admin, { title: `own ${tlp}`, severity: 2, tlp }));
      records.set(`other:${tlp}`, await t.kit.cases.create(other.admin, { title: `other ${tlp}`, severity: 2, tlp }));
    }
  });

  it("the service decides exactly as the reference model, for random keys, owners, records and actions", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const owner = await addUser(t.kit, t.organizationId, { status: s.ownerStatus, role: s.role, tlpClearance: s.ownerTlp });
        const { secret } = await addKey(t.kit, owner, {
          status: s.keyStatus,
          scopes: s.keyScopes,
          tlpClearance: s.keyTlp,
          expiresAt: s.expired ? "2026-03-01T11:00:00.000Z" : null,
        });
        const record = records.get(`${s.ownOrganization ? "own" : "other"}:${s.recordTlp}`)!;
        let actual: ErrorCode | "ok" | "hidden";
        try {
          const principal = await t.kit.authenticateKey(secret);
          if (s.action === "get") await t.kit.cases.get(principal, record.id);
          if (s.action === "update") await t.kit.cases.update(principal, record.id, { severity: 3 });
          if (s.action === "create") await t.kit.cases.create(principal, { title: "p", severity: 1, tlp: s.recordTlp });
          actual = "ok";
          if (s.action === "list") {
            const page = await t.kit.cases.list(principal, { limit: 200 });
            actual = page.data.some((c) => c.id === record.id) ? "ok" : "hidden";
          }
        } catch (error) {
          actual = (error as { code: ErrorCode }).code;
        }
        expect(actual, JSON.stringify(s)).toBe(expected(s));
      }),
      { numRuns: 300, seed: 20261122 },
    );
  });
});
