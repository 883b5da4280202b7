/**
 * The shared rate-limit store on a real PostgreSQL server: two host instances (each with its own
 * storage pool, store pool and h3 app, as two processes behind a load balancer would have) spend
 * one budget per key. Same server and CI rule as postgres.test.ts: with CI=true an unreachable
 * server fails the run; elsewhere the file is skipped, saying why.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaseKit, ManualClock, tierLimits } from "../../core/index.js";
import type { CaseKit } from "../../core/index.js";
import { createPostgresRateLimitStore, createPostgresStorage } from "../../adapters/postgres/index.js";
import { apiBasePath, createCaseKitApp } from "../../server/index.js";
import { addKey, addUser, keyHashSecret } from "../helpers/kit.js";
import { freshSchemaName, postgresReachable, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

const url = postgresUrl;
const up = await postgresReachable();
const run = await postgresShouldRun("postgres rate limits");
const schema = freshSchemaName("casekit_rl");
const health = `http://casekit.test${apiBasePath}/health`;

describe.skipIf(!run)("the shared PostgreSQL rate-limit store", () => {
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const closers: (() => Promise<void>)[] = [];
  let hosts: { kit: CaseKit; fetch: (secret: string) => Promise<Response> }[] = [];

  /** One host: its own storage pool, its own store pool, its own app. */
  async function host(storeUrl = url) {
    const storage = createPostgresStorage({ connectionString: url, schema, max: 3 });
    await storage.migrate();
    const store = createPostgresRateLimitStore({ connectionString: storeUrl, schema, max: 3 });
    closers.push(() => store.close(), () => storage.close());
    const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret }, rateLimits: { store } });
    const app = createCaseKitApp(kit);
    return { kit, fetch: (secret: string) => Promise.resolve(app.fetch(new Request(health, { headers: { authorization: `Bearer ${secret}` } }))) };
  }

  async function basicKey(kit: CaseKit, organizationId: string): Promise<string> {
    return (await addKey(kit, await addUser(kit, organizationId), { tier: "basic" })).secret;
  }

  let organizationId: string;

  beforeAll(async () => {
    expect(up, "PostgreSQL is unreachable").toBe(true);
    hosts = [await host(), await host()];
    const init = await hosts[0]!.kit.setup.initOrganization({ organizationName: "Shared SOC", email: "admin@shared.test" });
    organizationId = init.organization.id;
  });

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  });

  it("alternating between two hosts, one key spends one budget", async () => {
    const secret = await basicKey(hosts[0]!.kit, organizationId);
    const { burst } = tierLimits.basic;
    const remaining: number[] = [];
    for (let i = 0; i < burst; i++) {
      const answer = await hosts[i % 2]!.fetch(secret);
      expect(answer.status).toBe(200);
      remaining.push(Number(answer.headers.get("x-ratelimit-remaining")));
    }
    expect(remaining).toEqual(Array.from({ length: burst }, (_, i) => burst - i - 1));
    for (const h of hosts) expect((await h.fetch(secret)).status).toBe(429);
  });

  it("meters every tier, whose emission intervals need not be whole milliseconds (unlimited: 50 000 a minute)", async () => {
    for (const tier of ["unlimited", "enterprise", "professional", "standard", "basic"] as const) {
      const secret = (await addKey(hosts[0]!.kit, await addUser(hosts[0]!.kit, organizationId), { tier })).secret;
      for (const h of hosts) {
        const answer = await h.fetch(secret);
        expect(answer.status, tier).toBe(200);
        expect(answer.headers.get("x-ratelimit-limit"), tier).toMatch(/^\d+$/);
      }
    }
  });

  it("concurrent requests through both hosts admit exactly `burst`", async () => {
    const secret = await basicKey(hosts[0]!.kit, organizationId);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => hosts[i % 2]!.fetch(secret)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(tierLimits.basic.burst);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - tierLimits.basic.burst);
  });

  it("one key's exhaustion leaves another key's budget alone, on either host", async () => {
    const spent = await basicKey(hosts[0]!.kit, organizationId);
    const fresh = await basicKey(hosts[1]!.kit, organizationId);
    for (let i = 0; i < 12; i++) await hosts[i % 2]!.fetch(spent);
    const answer = await hosts[1]!.fetch(fresh);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-ratelimit-remaining")).toBe(String(tierLimits.basic.burst - 1));
  });

  it("the spend that overlaps the key check is used only for the key the check confirms: a policy change or a revocation is seen by the next request on either host", async () => {
    const init = await hosts[0]!.kit.setup.initOrganization({ organizationName: "Policy SOC", email: "admin@policy.test" });
    const admin = await hosts[0]!.kit.authenticateKey(init.apiKey);
    const owner = await addUser(hosts[0]!.kit, init.organization.id);
    const { secret, key } = await addKey(hosts[0]!.kit, owner, { tier: "basic" });
    // Both hosts hold the key, so the next requests start their spend before the check.
    for (const h of hosts) expect((await h.fetch(secret)).headers.get("x-ratelimit-remaining")).not.toBeNull();
    await hosts[1]!.kit.organizations.updatePolicy(admin, { rateLimits: { basic: { burst: 6 } } });
    for (const h of hosts) {
      const answer = await h.fetch(secret);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-ratelimit-limit")).toBe("6");
    }
    await hosts[0]!.kit.keys.changeStatus(admin, key.id, "revoke");
    for (const h of hosts) {
      const answer = await h.fetch(secret);
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({ code: "key_revoked" });
    }
  });

  it("a store that cannot be reached fails closed with 503 unavailable", async () => {
    const unreachable = await host("postgres://postgres@127.0.0.1:1/test");
    const secret = await basicKey(unreachable.kit, organizationId);
    const answer = await unreachable.fetch(secret);
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({ code: "unavailable" });
  });

  it("the store itself: concurrent updates of one key through three stores (two on one host) lose none, and a swept row starts over", async () => {
    const stores = [0, 1].map(() => createPostgresRateLimitStore({ connectionString: url, schema, max: 3 }));
    closers.push(...stores.map((store) => () => store.close()));
    const key = `count:${Math.random()}`;
    // Each update adds one to `tat`; a lost update (two building on one state) would show as a smaller total.
    const bump = (state: { tat: number; buckets: [number, number][]; reset: number } | null) => {
      const count = (state?.tat ?? 0) + 1;
      return { state: { tat: count, buckets: [], reset: 0 }, result: count };
    };
    const through = [stores[0]!, stores[0]!, stores[1]!];
    const results = await Promise.all(Array.from({ length: 90 }, (_, i) => through[i % 3]!.update(key, bump)));
    expect(new Set(results).size).toBe(90);
    expect(await stores[1]!.peek(key)).toMatchObject({ tat: 90 });
    // Another host's write is seen: the first store's remembered state is stale and is read again.
    await stores[1]!.update(key, bump);
    expect(await stores[0]!.update(key, bump)).toBe(92);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DELETE FROM "${schema}".rate_limits WHERE key = $1`, [key]);
    await admin.end();
    expect(await stores[0]!.update(key, bump)).toBe(1);
  });

  it("the updates of one key that gather on a host while one is under way go together: each gets its own decision, the group one write", async () => {
    const store = createPostgresRateLimitStore({ connectionString: url, schema, max: 3 });
    closers.push(() => store.close());
    const key = `group:${Math.random()}`;
    const bump = (state: { tat: number; buckets: [number, number][]; reset: number } | null) => {
      const count = (state?.tat ?? 0) + 1;
      return { state: { tat: count, buckets: [], reset: 0 }, result: count };
    };
    await store.update(key, bump); // the row exists and its state is known: the next writes are compare-and-sets
    let writes = 0;
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as { text?: string } | string;
      if ((typeof config === "string" ? config : (config.text ?? "")).includes("rate_limits")) writes += 1;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    let results: number[];
    try {
      results = await Promise.all(Array.from({ length: 50 }, () => store.update(key, bump)));
    } finally {
      pg.Client.prototype.query = query;
    }
    // In the order asked, as if each had run alone after the one before it.
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
    expect(await store.peek(key)).toMatchObject({ tat: 51 });
    // The first alone, the 49 that gathered behind it together.
    expect(writes).toBe(2);
  });

  it("its own connections commit without waiting for the WAL flush; a pool you pass keeps its own settings", async () => {
    const bump = (state: { tat: number } | null) => ({ state: { tat: (state?.tat ?? 0) + 1, buckets: [] as [number, number][], reset: 0 }, result: null });
    /** The connections that ran the store's statements during `work` (idle in their pool afterwards), and their synchronous_commit. */
    async function settingsUsedBy(work: () => Promise<unknown>): Promise<string[]> {
      const used = new Set<pg.Client>();
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const config = args[0] as { text?: string } | string;
        if ((typeof config === "string" ? config : (config.text ?? "")).includes("rate_limits")) used.add(this);
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        await work();
      } finally {
        pg.Client.prototype.query = query;
      }
      return Promise.all([...used].map(async (client) => (await client.query<{ synchronous_commit: string }>("SHOW synchronous_commit")).rows[0]!.synchronous_commit));
    }

    const own = createPostgresRateLimitStore({ connectionString: url, schema, max: 2 });
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const passed = createPostgresRateLimitStore({ pool, schema });
    closers.push(() => own.close(), () => pool.end());
    const key = `sync:${Math.random()}`;
    // Two keys at once (two connections), then the compare-and-set: one statement outside a transaction.
    const ownSettings = await settingsUsedBy(async () => {
      await Promise.all([own.update(key, bump), own.update(`${key}:b`, bump)]);
      await own.update(key, bump);
    });
    expect(ownSettings.length).toBeGreaterThan(0);
    expect(new Set(ownSettings)).toEqual(new Set(["off"]));
    const passedSettings = await settingsUsedBy(() => passed.update(key, bump));
    expect(passedSettings.length).toBeGreaterThan(0);
    expect(new Set(passedSettings)).toEqual(new Set(["on"]));
  });
});
