// Unit-testing your own code against the casekit core, with no HTTP: a copyable pattern.
// Each test gets a fresh in-memory SQLite database and a manual clock, so tests are fast, isolated,
// and time moves only when the test says so. In your project, import from "casekit"
// and "casekit/sqlite" instead of the relative paths.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCaseKit, isCaseKitError, ManualClock } from "../../core/index.js";
import type { CaseKit, Principal } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

let kit: CaseKit;
let clock: ManualClock;
let admin: Principal;
let organizationId: string;

beforeEach(async () => {
  const storage = createSqliteStorage({ path: ":memory:" });
  await storage.migrate();
  clock = new ManualClock("2026-03-01T09:00:00.000Z");
  kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret: "test-key-hash-secret-0123456789abcdef" } });
  const init = await kit.setup.initOrganization({ organizationName: "Test SOC", email: "admin@test.example" });
  organizationId = init.organization.id;
  // Act as the organization's admin, as your host would after its own sign-in.
  admin = await kit.principalFor({ organizationId, userId: init.user.id });
});

afterEach(async () => {
  await kit.storage.close();
});

/** The code of the CaseKitError a call fails with. */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (isCaseKitError(error)) return error.code;
    throw error;
  }
  throw new Error("expected the call to fail");
}

/** Your domain code: escalate a case an hour old that nobody has picked up yet. */
async function escalateStaleCases(kit: CaseKit, principal: Principal, olderThanMs: number) {
  const cutoff = new Date(kit.clock.now().getTime() - olderThanMs).toISOString();
  const stale = await kit.cases.list(principal, { statusValue: ["new"], createdBefore: cutoff });
  return Promise.all(stale.data.map((c) => kit.cases.update(principal, c.id, { severity: 4, statusValue: "in_progress" })));
}

describe("escalating stale cases", () => {
  it("escalates only cases older than the threshold, at the clock's time", async () => {
    const old = await kit.cases.create(admin, { title: "Beaconing host", severity: 2 });
    clock.advance(90 * 60_000);
    const fresh = await kit.cases.create(admin, { title: "Odd login", severity: 2 });

    const escalated = await escalateStaleCases(kit, admin, 60 * 60_000);

    expect(escalated.map((c) => c.id)).toEqual([old.id]);
    expect(escalated[0]).toMatchObject({ severity: 4, statusValue: "in_progress", updatedAt: "2026-03-01T10:30:00.000Z" });
    expect(await kit.cases.get(admin, fresh.id)).toMatchObject({ severity: 2, statusValue: "new" });
  });

  it("is refused for a read-only user: the core enforces the role", async () => {
    await kit.cases.create(admin, { title: "Beaconing host", severity: 2 });
    clock.advance(2 * 60 * 60_000);
    const auditor = await kit.users.create(admin, { email: "auditor@test.example", name: "Auditor", role: "read_only" });
    const asAuditor = await kit.principalFor({ organizationId, userId: auditor.id });

    expect(await codeOf(escalateStaleCases(kit, asAuditor, 60 * 60_000))).toBe("missing_scope");
  });

  it("never sees cases above the caller's TLP clearance", async () => {
    await kit.cases.create(admin, { title: "Red case", severity: 2, tlp: 4 });
    clock.advance(2 * 60 * 60_000);
    const amber = await kit.principalFor({ organizationId, userId: admin.userId, tlpClearance: 2 });

    expect(await escalateStaleCases(kit, amber, 60 * 60_000)).toEqual([]);
  });
});
