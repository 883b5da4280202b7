/**
 * The access cache's one promise, on a real database shared by several hosts: every change that
 * affects access, made through one host, is what the very next request on any other host sees.
 *
 * - The triggers: every column of api_keys and users, and every column of organizations the record
 *   holds, moves the organization's access version when written (derived from the declarations,
 *   so a column added later without its trigger fails here); the named bookkeeping columns do not.
 * - The matrix: each service call that changes a key, a user or the policy, made on host A, then
 *   the next key check and rate-limit decision on host B (whose cache holds the key) equal those
 *   of host C, which caches nothing: the oracle is the database itself.
 * - Bookkeeping through casekit (lastUsedAt, case numbers, the TLP chain) leaves the version alone.
 *
 * Run by test/adapters/access-version.test.ts (SQLite: three storages on one file) and
 * test/conformance/postgres-access-version.test.ts (three pools on one schema).
 */
import { describe, expect, it } from "vitest";
import { apiKeyResource } from "../../adapters/resources/api-keys.js";
import { organizationResource } from "../../adapters/resources/organizations.js";
import { userResource } from "../../adapters/resources/users.js";
import type { Resource } from "../../adapters/declare/resource.js";
import type { CaseKit, ManualClock, Principal } from "../../core/index.js";
import { isCaseKitError } from "../../core/index.js";

export interface AccessHarness {
  /** Kits over one database (one storage each, as separate hosts), migrated, sharing `clock`. Host index 2 and up cache nothing. */
  hosts(): Promise<CaseKit[]>;
  clock: ManualClock;
  /** One statement outside casekit (an operator's hand); rows for a SELECT. */
  raw(sql: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  /** The dialect's n-th parameter placeholder. */
  param(n: number): string;
}

/** Columns whose writes are bookkeeping, not access (see the access_version migrations). */
const bookkeeping: Record<string, readonly string[]> = {
  api_keys: ["last_used_at"],
  users: [],
  organizations: ["case_seq", "tlp_audit_seq", "tlp_audit_hash", "audit_seq", "audit_hash", "audit_legacy_seq", "access_version", "definitions_version", "active_webhooks"],
};

/**
 * What a host decides for one request with `secret` (or, given an identity, for the embedding
 * host's own identity of that user): the principal, the limit that binds and the policy it acts
 * under, or the refusal's code.
 */
async function decision(kit: CaseKit, secret: string | { organizationId: string; userId: string }) {
  try {
    const principal = typeof secret === "string" ? await kit.authenticateKey(secret) : await kit.principalFor({ ...secret, tier: "standard" });
    const limit = await kit.limits.consume(principal);
    const organization = await kit.access.organizationFor(principal);
    return {
      principal: { ...principal, scopes: [...principal.scopes].sort() },
      limit: limit && { limit: limit.limit, window: limit.window },
      policy: organization?.policy,
    };
  } catch (error) {
    if (isCaseKitError(error)) return { refused: error.code };
    throw error;
  }
}

interface World {
  a: CaseKit;
  admin: Principal;
  organizationId: string;
  subject: { userId: string; keyId: string; secret: string };
}

/** Every service call that changes access, in an order where each one changes something. */
const steps: { name: string; act: (w: World) => Promise<unknown>; expect: (d: Awaited<ReturnType<typeof decision>>) => void }[] = [
  { name: "key suspended", act: (w) => w.a.keys.changeStatus(w.admin, w.subject.keyId, "suspend"), expect: (d) => expect(d).toMatchObject({ refused: "key_suspended" }) },
  { name: "key resumed", act: (w) => w.a.keys.changeStatus(w.admin, w.subject.keyId, "resume"), expect: (d) => expect(d).toHaveProperty("principal") },
  {
    name: "user's clearance lowered",
    act: (w) => w.a.users.update(w.admin, w.subject.userId, { tlpClearance: 1 }),
    expect: (d) => expect(d).toMatchObject({ principal: { tlpClearance: 1 } }),
  },
  {
    name: "user's role lowered",
    act: (w) => w.a.users.update(w.admin, w.subject.userId, { role: "read_only" }),
    expect: (d) => expect(d).toMatchObject({ principal: { role: "read_only", scopes: ["cases:read"] } }),
  },
  { name: "user disabled", act: (w) => w.a.users.update(w.admin, w.subject.userId, { status: "disabled" }), expect: (d) => expect(d).toMatchObject({ refused: "owner_inactive" }) },
  { name: "user locked", act: (w) => w.a.users.update(w.admin, w.subject.userId, { status: "locked" }), expect: (d) => expect(d).toMatchObject({ refused: "owner_inactive" }) },
  {
    name: "user active again, role and clearance raised",
    act: (w) => w.a.users.update(w.admin, w.subject.userId, { status: "active", role: "analyst", tlpClearance: 3 }),
    expect: (d) => expect(d).toMatchObject({ principal: { role: "analyst", tlpClearance: 2, scopes: ["cases:read", "cases:write"] } }),
  },
  {
    name: "policy: rate limits lowered",
    act: (w) => w.a.organizations.updatePolicy(w.admin, { rateLimits: { standard: { perMinute: 10, perHour: 100, burst: 5 } } }),
    expect: (d) => expect(d).toMatchObject({ limit: { limit: 5 } }),
  },
  {
    name: "policy: every other setting",
    act: (w) => w.a.organizations.updatePolicy(w.admin, { maxKeyTlp: 2, requireKeyExpiry: true, maxKeyLifetimeDays: 30, allowedTiers: ["basic", "standard"], allowCaseSharing: true }),
    expect: (d) => expect(d).toMatchObject({ policy: { maxKeyTlp: 2, requireKeyExpiry: true, maxKeyLifetimeDays: 30, allowedTiers: ["basic", "standard"], allowCaseSharing: true } }),
  },
  { name: "policy: rate limits back", act: (w) => w.a.organizations.updatePolicy(w.admin, { rateLimits: {} }), expect: (d) => expect(d).toMatchObject({ limit: { limit: 50 } }) },
  { name: "user renamed", act: (w) => w.a.users.update(w.admin, w.subject.userId, { name: "Renamed" }), expect: (d) => expect(d).toHaveProperty("principal") },
  { name: "key revoked", act: (w) => w.a.keys.changeStatus(w.admin, w.subject.keyId, "revoke"), expect: (d) => expect(d).toMatchObject({ refused: "key_revoked" }) },
  { name: "key deleted", act: (w) => w.a.keys.delete(w.admin, w.subject.keyId), expect: (d) => expect(d).toMatchObject({ refused: "invalid_key" }) },
];

/** The service methods that change keys, users or the organization, and the steps above that call them. */
const changers = { keys: ["create", "changeStatus", "delete"], users: ["create", "update"], organizations: ["updatePolicy"] } as const;
const readers = { keys: ["list", "get", "grantOptions"], users: ["list", "get"], organizations: ["get"] } as const;

export function describeAccessVersion(label: string, harness: () => Promise<AccessHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip === true)(`access version and cache (${label})`, () => {
    async function world(): Promise<{ h: AccessHarness; kits: CaseKit[]; w: World }> {
      const h = await harness();
      const kits = await h.hosts();
      const a = kits[0]!;
      const init = await a.setup.initOrganization({ organizationName: `Access ${Math.random()}`, email: `admin-${Math.random().toString(36).slice(2)}@access.test` });
      const admin = await a.authenticateKey(init.apiKey);
      const user = await a.users.create(admin, { email: `subject-${Math.random().toString(36).slice(2)}@access.test`, name: "Subject", role: "analyst", tlpClearance: 3 });
      // The subject's own key, made by the subject in the account area (a person manages their own keys).
      const self = { ...(await a.principalFor({ organizationId: init.organization.id, userId: user.id })), authenticatedBy: "session" as const };
      const key = await a.keys.create(self, { name: "subject", scopes: ["cases:read", "cases:write"], tlpClearance: 2, tier: "standard" });
      return { h, kits, w: { a, admin, organizationId: init.organization.id, subject: { userId: user.id, keyId: key.id, secret: key.key } } };
    }

    it("the storage's fast path (read on every request) answers what a unit reads, change after change, on every host", async () => {
      const { kits, w } = await world();
      const read = (kit: CaseKit, id: string) => kit.storage.read((tx) => tx.organizations.accessVersion(id));
      for (const kit of kits) expect(kit.storage.accessVersion, "both adapters have one").toBeTypeOf("function");
      const changes = [
        () => w.a.keys.changeStatus(w.admin, w.subject.keyId, "suspend"),
        () => w.a.keys.changeStatus(w.admin, w.subject.keyId, "resume"),
        () => w.a.organizations.updatePolicy(w.admin, { rateLimits: { standard: { burst: 20 } } }),
      ];
      let last = await read(w.a, w.organizationId);
      for (const change of changes) {
        await change();
        for (const kit of kits) {
          const fast = await kit.storage.accessVersion!(w.organizationId);
          expect(fast).toBe(await read(kit, w.organizationId));
          expect(fast).not.toBe(last);
        }
        last = await read(w.a, w.organizationId);
      }
      for (const kit of kits) expect(await kit.storage.accessVersion!("org_unknown")).toBeNull();
    });

    it("answers the reads of one turn, several organizations and repeats among them, each with its own organization's version", async () => {
      const { h, kits, w } = await world();
      const other = await w.a.setup.initOrganization({ organizationName: `Turn ${Math.random()}`, email: `turn-${Math.random().toString(36).slice(2)}@access.test` });
      // The two organizations' versions made to differ, so that an answer given to the wrong one shows.
      const version = async (id: string) => Number((await h.raw(`SELECT access_version FROM organizations WHERE id = ${h.param(1)}`, [id]))[0]!.access_version);
      for (let moves = 0; (await version(other.organization.id)) <= (await version(w.organizationId)); moves++) {
        await h.raw(`UPDATE organizations SET name = ${h.param(1)} WHERE id = ${h.param(2)}`, [`Moved ${moves}`, other.organization.id]);
      }
      const ids = [w.organizationId, other.organization.id, "org_unknown", other.organization.id, w.organizationId];
      for (const kit of kits) {
        const oneByOne: (number | null)[] = [];
        for (const id of ids) oneByOne.push(await kit.storage.accessVersion!(id));
        expect(oneByOne[0]).not.toBe(oneByOne[1]);
        expect(await Promise.all(ids.map((id) => kit.storage.accessVersion!(id)))).toEqual(oneByOne);
      }
    });

    it("moves on a write of every column but bookkeeping, of keys, users and the organization, in that organization only", async () => {
      const { h, w } = await world();
      const other = await w.a.setup.initOrganization({ organizationName: `Other ${Math.random()}`, email: `other-${Math.random().toString(36).slice(2)}@access.test` });
      const version = async (id: string) => Number((await h.raw(`SELECT access_version FROM organizations WHERE id = ${h.param(1)}`, [id]))[0]!.access_version);
      const otherBefore = await version(other.organization.id);
      const rows: [Resource, string][] = [
        [apiKeyResource, w.subject.keyId],
        [userResource, w.subject.userId],
        [organizationResource, w.organizationId],
      ];
      for (const [resource, id] of rows) {
        for (const field of resource.tableFields) {
          const before = await version(w.organizationId);
          await h.raw(`UPDATE ${resource.table} SET ${field.name} = ${field.name} WHERE id = ${h.param(1)}`, [id]);
          const moves = !bookkeeping[resource.table]!.includes(field.name);
          expect(await version(w.organizationId), `${resource.table}.${field.name}`).toBe(before + (moves ? 1 : 0));
        }
      }
      // Inserts and deletes of keys and users move it too.
      const before = await version(w.organizationId);
      await h.raw(`DELETE FROM api_keys WHERE id = ${h.param(1)}`, [w.subject.keyId]);
      expect(await version(w.organizationId)).toBe(before + 1);
      await w.a.users.create(w.admin, { email: `new-${Math.random().toString(36).slice(2)}@access.test`, name: "New", role: "analyst" });
      expect(await version(w.organizationId)).toBe(before + 2);
      expect(await version(other.organization.id)).toBe(otherBefore);
    });

    it("covers every service call that changes a key, a user or the policy", async () => {
      const { kits } = await world();
      for (const [service, methods] of Object.entries(changers)) {
        const all = Object.keys(kits[0]![service as keyof typeof changers]).sort();
        expect(all, service).toEqual([...methods, ...readers[service as keyof typeof readers]].sort());
      }
    });

    it("after each change made on one host, the next request on another host decides as a host with no cache", async () => {
      const { kits, w } = await world();
      const [, b, c] = kits as [CaseKit, CaseKit, CaseKit];
      // Host B holds the key (and its organization) from here on.
      expect(await decision(b, w.subject.secret)).toEqual(await decision(c, w.subject.secret));
      expect(b.access.size().keys).toBe(1);
      for (const step of steps) {
        await step.act(w);
        const onB = await decision(b, w.subject.secret);
        expect(onB, step.name).toEqual(await decision(c, w.subject.secret));
        step.expect(onB);
        // The embedding host's identities read the policy through the same cache.
        const identity = { organizationId: w.organizationId, userId: w.subject.userId };
        expect(await decision(b, identity), `${step.name}, host identity`).toEqual(await decision(c, identity));
      }
      // A key created on A works on B at once (an unknown hash is never cached).
      const self = { ...(await w.a.principalFor({ organizationId: w.organizationId, userId: w.subject.userId })), authenticatedBy: "session" as const };
      const created = await w.a.keys.create(self, { name: "new", scopes: ["cases:read"], tlpClearance: 1, tier: "basic", expiresAt: "2026-03-20T00:00:00.000Z" });
      expect(await decision(b, created.key)).toEqual(await decision(c, created.key));
      expect(await decision(b, created.key)).toMatchObject({ principal: { keyId: created.id, tier: "basic" } });
    });

    it("refuses a cached key once it expires, by the clock alone", async () => {
      const { h, kits, w } = await world();
      const b = kits[1]!;
      const self = { ...(await w.a.principalFor({ organizationId: w.organizationId, userId: w.subject.userId })), authenticatedBy: "session" as const };
      const expiresAt = new Date(h.clock.now().getTime() + 60_000).toISOString();
      const created = await w.a.keys.create(self, { name: "short", scopes: ["cases:read"], expiresAt });
      expect(await decision(b, created.key)).toHaveProperty("principal");
      h.clock.advance(60_000);
      expect(await decision(b, created.key)).toMatchObject({ refused: "key_expired" });
    });

    it("is not moved by bookkeeping: lastUsedAt, case numbers, the TLP chain, list views", async () => {
      const { h, kits, w } = await world();
      const b = kits[1]!;
      const versionNow = () => b.storage.read((tx) => tx.organizations.accessVersion(w.organizationId));
      const before = await versionNow();
      expect(before).toBeGreaterThan(0);
      const analyst = await b.authenticateKey(w.subject.secret);
      // lastUsedAt is written in the background: wait for it, then for a second touch a minute later.
      const lastUsed = async () => (await b.storage.read((tx) => tx.apiKeys.findById(w.organizationId, w.subject.keyId)))!.lastUsedAt;
      await expect.poll(lastUsed).not.toBeNull();
      const first = await lastUsed();
      h.clock.advance(61_000);
      await b.authenticateKey(w.subject.secret);
      await expect.poll(lastUsed).not.toBe(first);
      for (let n = 0; n < 3; n++) await b.cases.create(analyst, { title: `Bookkeeping ${n}`, severity: 2, tlp: 2 });
      await b.cases.list(analyst, {});
      expect(await versionNow()).toBe(before);
      // …and the cached key was reused throughout: still one entry, no reload needed.
      expect(b.access.size().keys).toBe(1);
    });
  });
}
