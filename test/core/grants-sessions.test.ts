// Item 2 of issue 12: a new password or status ends the user's sessions, in the same unit of work
// as the change itself.
import { describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import type { CaseKitError, ErrorCode, Storage, UnitOfWork } from "../../core/index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { unitWith } from "../helpers/unit-with.js";

async function outcome(promise: Promise<unknown>): Promise<ErrorCode | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as CaseKitError).code ?? "internal_error";
  }
}

/** Storage whose event outbox fails while `broken` is set: the last write of a user change. */
function withBrokenOutbox(inner: Storage): { storage: Storage; broken: { on: boolean } } {
  const broken = { on: false };
  const wrap = (tx: UnitOfWork): UnitOfWork =>
    unitWith(tx, {
      events: {
        ...tx.events,
        append: async (event) => {
          if (broken.on) throw new Error("injected outbox fault");
          return tx.events.append(event);
        },
      },
    });
  return {
    broken,
    storage: {
      transaction: (work) => inner.transaction((tx) => work(wrap(tx))),
      read: (work) => inner.read(work),
      migrate: () => inner.migrate(),
      ping: () => inner.ping(),
      close: () => inner.close(),
    },
  };
}

async function setUp() {
  const inner = createSqliteStorage({ path: ":memory:" });
  await inner.migrate();
  const { storage, broken } = withBrokenOutbox(inner);
  const kit = createCaseKit({ storage, passwordHasher: fastPasswordHasher, clock: new ManualClock("2026-03-01T12:00:00.000Z"), config: { keyHashSecret } });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  const password = "the analyst's own password";
  const user = await kit.users.create(admin, { email: "ana@acme.test", name: "Ana", role: "analyst", password });
  const signIn = () => kit.account.signIn({ email: "ana@acme.test", password });
  const session = (token: string) => kit.account.authenticateSession(token, { requireCsrf: false });
  return { kit, admin, user, broken, signIn, session };
}

describe("ending sessions with a password or status change", () => {
  for (const [name, patch] of [
    ["a new password", { password: "a brand-new password, 2026" }],
    ["a status change", { status: "disabled" }],
  ] as const) {
    it(`${name} ends every session of the user, and nobody else's`, async () => {
      const s = await setUp();
      const [first, second] = [await s.signIn(), await s.signIn()];
      await s.kit.users.create(s.admin, { email: "other@acme.test", name: "Other", role: "analyst", password: "another password, long" });
      const bystander = await s.kit.account.signIn({ email: "other@acme.test", password: "another password, long" });
      await s.kit.users.update(s.admin, s.user.id, patch);
      expect(await outcome(s.session(first.token))).toBe("invalid_session");
      expect(await outcome(s.session(second.token))).toBe("invalid_session");
      expect(await outcome(s.session(bystander.token))).toBe("ok");
    });
  }

  it("a change of name, role or clearance keeps the session (they apply on the next request anyway)", async () => {
    const s = await setUp();
    const { token } = await s.signIn();
    await s.kit.users.update(s.admin, s.user.id, { name: "Ana B.", role: "read_only", tlpClearance: 1 });
    const principal = await s.kit.account.authenticateSession(token, { requireCsrf: false });
    expect({ role: principal.role, tlpClearance: principal.tlpClearance }).toEqual({ role: "read_only", tlpClearance: 1 });
  });

  it("is one unit of work with the change: when the change fails, the sessions and the old password survive", async () => {
    const s = await setUp();
    const { token } = await s.signIn();
    s.broken.on = true;
    expect(await outcome(s.kit.users.update(s.admin, s.user.id, { password: "a password that never lands" }))).toBe("internal_error");
    expect(await outcome(s.kit.users.update(s.admin, s.user.id, { status: "disabled" }))).toBe("internal_error");
    s.broken.on = false;
    expect(await outcome(s.session(token))).toBe("ok");
    expect(await outcome(s.signIn())).toBe("ok");
  });
});
