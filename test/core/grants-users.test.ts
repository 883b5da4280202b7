// Item 2 and the clearance part of item 12 of issue 12, in-process: nobody changes or grants more
// than they hold, through kit.users.create / kit.users.update, for every cell of the matrix.
import { beforeAll, describe, expect, it } from "vitest";
import { allScopes } from "../../core/index.js";
import type { CaseKitError, ErrorCode, Principal, StoredUser } from "../../core/index.js";
import { addKey, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";
import { callers, changes, createCells, outcomesByChange, updateCells } from "./grants-matrix.js";
import type { Caller } from "./grants-matrix.js";

async function outcome(promise: Promise<unknown>): Promise<ErrorCode | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as CaseKitError).code;
  }
}

const stored = (t: TestKit, id: string) => t.kit.storage.read((tx) => tx.users.findById(t.organizationId, id)) as Promise<StoredUser>;

describe("the grants matrix itself", () => {
  it("has both outcomes for every kind of change, so no row is vacuous", () => {
    for (const change of changes) expect([...outcomesByChange().get(change.name)!].sort(), change.name).toEqual(["ok", "refused"]);
  });
});

describe("kit.users.update: every caller × target × change", () => {
  let t: TestKit;
  const principals = new Map<Caller, Principal>();
  beforeAll(async () => {
    t = await makeTestKit();
    // Each caller is a real key of a real owner (clearance 4), so the role caps its scopes.
    for (const caller of callers) {
      const owner = await addUser(t.kit, t.organizationId, { role: caller.ownerRole, tlpClearance: 4 });
      const { secret } = await addKey(t.kit, owner, { scopes: [...caller.scopes], tlpClearance: caller.tlpClearance });
      principals.set(caller, await t.kit.authenticateKey(secret));
    }
  });

  for (const cell of updateCells) {
    it(`${cell.name} → ${cell.expected}`, async () => {
      const target = await addUser(t.kit, t.organizationId, { role: cell.target.role, tlpClearance: cell.target.tlpClearance });
      const before = await stored(t, target.id);
      expect(await outcome(t.kit.users.update(principals.get(cell.caller)!, target.id, cell.change.patch))).toBe(cell.expected);
      const after = await stored(t, target.id);
      if (cell.expected !== "ok") {
        expect(after).toStrictEqual(before); // a refusal changes nothing
        return;
      }
      const { password, ...fields } = cell.change.patch;
      expect(after).toMatchObject(fields);
      if (password !== undefined) expect(after.passwordHash).not.toBe(before.passwordHash);
    });
  }
});

describe("kit.users.create: every caller × new user", () => {
  let t: TestKit;
  const principals = new Map<Caller, Principal>();
  beforeAll(async () => {
    t = await makeTestKit();
    for (const caller of callers) {
      const owner = await addUser(t.kit, t.organizationId, { role: caller.ownerRole, tlpClearance: 4 });
      const { secret } = await addKey(t.kit, owner, { scopes: [...caller.scopes], tlpClearance: caller.tlpClearance });
      principals.set(caller, await t.kit.authenticateKey(secret));
    }
  });

  let n = 0;
  for (const cell of createCells) {
    it(`${cell.name} → ${cell.expected}`, async () => {
      const email = `created${++n}@acme.test`;
      const body = { email, name: "Created by the matrix", role: cell.created.role, tlpClearance: cell.created.tlpClearance };
      expect(await outcome(t.kit.users.create(principals.get(cell.caller)!, body))).toBe(cell.expected);
      const found = await t.kit.storage.read((tx) => tx.users.findByEmail(email));
      if (cell.expected === "ok") expect(found).toMatchObject({ role: cell.created.role, tlpClearance: cell.created.tlpClearance });
      else expect(found).toBeNull();
    });
  }
});

describe("the take-over of issue 12 item 2, step by step", () => {
  it("a users:write key of clearance 1 without org:admin cannot reset, disable, demote or lower any admin, its own owner included", async () => {
    const t = await makeTestKit();
    const owner = await addUser(t.kit, t.organizationId, { role: "admin", tlpClearance: 4 });
    const { secret } = await addKey(t.kit, owner, { scopes: ["users:read", "users:write"], tlpClearance: 1 });
    const key = await t.kit.authenticateKey(secret);
    for (const admin of [t.admin.userId, owner.id]) {
      const before = await stored(t, admin);
      expect(await outcome(t.kit.users.update(key, admin, { password: "taken over by a key" }))).toBe("missing_scope");
      expect(await outcome(t.kit.users.update(key, admin, { status: "disabled" }))).not.toBe("ok");
      expect(await outcome(t.kit.users.update(key, admin, { tlpClearance: 0 }))).not.toBe("ok");
      expect(await outcome(t.kit.users.update(key, admin, { role: "read_only" }))).not.toBe("ok");
      expect(await stored(t, admin)).toStrictEqual(before);
    }
    // Nor can it mint itself a way in: no new admin, no new user with scopes it lacks.
    expect(await outcome(t.kit.users.create(key, { email: "mole@acme.test", name: "Mole", role: "admin", password: "a password the key knows" }))).toBe("missing_scope");
    expect(await outcome(t.kit.users.create(key, { email: "mole@acme.test", name: "Mole", role: "read_only", tlpClearance: 1 }))).toBe("missing_scope");
  });

  it("an org:admin key resets a peer's password only within its clearance", async () => {
    const t = await makeTestKit();
    const peer = await addUser(t.kit, t.organizationId, { role: "admin", tlpClearance: 4 });
    const { secret: low } = await addKey(t.kit, peer, { scopes: ["users:read", "users:write", "org:admin"], tlpClearance: 2 });
    // org:admin alone does not make a key an admin: it must hold every admin scope to act on one.
    expect(await outcome(t.kit.users.update(await t.kit.authenticateKey(low), t.admin.userId, { password: "not yours to set" }))).toBe("missing_scope");
    const { secret: full } = await addKey(t.kit, peer, { scopes: [...allScopes], tlpClearance: 2 });
    const everyScopeLowClearance = await t.kit.authenticateKey(full);
    expect(await outcome(t.kit.users.update(everyScopeLowClearance, t.admin.userId, { password: "not yours to set" }))).toBe("tlp_restricted");
    expect(await outcome(t.kit.users.update(t.admin, peer.id, { password: "a reset by a peer admin" }))).toBe("ok");
  });
});

describe("self-changes", () => {
  it("nobody changes their own role, status or clearance: the only admin cannot lower a clearance they could never raise back (409)", async () => {
    const t = await makeTestKit();
    const before = await stored(t, t.admin.userId);
    for (const patch of [{ tlpClearance: 3 }, { tlpClearance: 0 }, { role: "analyst" as const }, { status: "disabled" as const }]) {
      expect(await outcome(t.kit.users.update(t.admin, t.admin.userId, patch)), JSON.stringify(patch)).toBe("conflict");
    }
    expect(await stored(t, t.admin.userId)).toStrictEqual(before);
    // Setting what is already there is not a change, and the admin keeps creating cases at the default TLP.
    expect(await outcome(t.kit.users.update(t.admin, t.admin.userId, { tlpClearance: 4, name: "Still the admin" }))).toBe("ok");
    expect(await outcome(t.kit.cases.create(t.admin, { title: "Still possible", severity: 2 }))).toBe("ok");
  });
});
