/**
 * The access cache's bookkeeping: a key seen before costs one version read and nothing else, the
 * cache holds at most its bound (least recently used dropped first), and a size of 0 caches
 * nothing. Correctness across changes and hosts: test/conformance/access-version-suite.ts.
 */
import { describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { Storage } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { addKey, addUser, keyHashSecret } from "../helpers/kit.js";
import { migratedMemoryDatabase } from "../helpers/migrated-sqlite.js";

/** A storage that counts what goes through it. */
function counting(storage: Storage) {
  const counts = { reads: 0, versions: 0 };
  const wrapped: Storage = {
    transaction: (work) => storage.transaction(work),
    read: (work) => ((counts.reads += 1), storage.read(work)),
    migrate: () => storage.migrate(),
    ping: () => storage.ping(),
    close: () => storage.close(),
    accessVersion: (id) => ((counts.versions += 1), storage.accessVersion!(id)),
  };
  return { storage: wrapped, counts };
}

async function kitWith(accessCacheEntries?: number) {
  const { storage, counts } = counting(createSqliteStorage({ database: await migratedMemoryDatabase() }));
  await storage.migrate();
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock: new ManualClock("2026-03-01T12:00:00.000Z"), config: { keyHashSecret }, accessCacheEntries });
  const init = await kit.setup.initOrganization({ organizationName: "Cache SOC", email: "admin@cache.test" });
  return { kit, counts, init };
}

describe("access cache", () => {
  it("answers a key seen before with one version read, key check and limit together", async () => {
    const { kit, counts, init } = await kitWith();
    await kit.limits.consume(await kit.authenticateKey(init.apiKey));
    const before = { ...counts };
    for (let n = 0; n < 5; n++) await kit.limits.consume(await kit.authenticateKey(init.apiKey, { requestId: `req_${n}` }));
    expect(counts.reads - before.reads).toBe(0);
    expect(counts.versions - before.versions).toBe(5);
  });

  it("holds at most its bound, dropping the least recently used key", async () => {
    const { kit, counts, init } = await kitWith(2);
    const owner = await addUser(kit, init.organization.id);
    const [one, two] = [await addKey(kit, owner), await addKey(kit, owner)];
    await kit.authenticateKey(one.secret);
    await kit.authenticateKey(two.secret);
    await kit.authenticateKey(one.secret); // `two` is now the least recently used…
    await kit.authenticateKey(init.apiKey); // …and makes room for the admin's key
    expect(kit.access.size().keys).toBe(2);
    const reads = async (hash: string) => {
      const before = counts.reads;
      await kit.access.keyByHash(hash);
      return counts.reads - before;
    };
    expect(await reads(one.key.hash)).toBe(0);
    expect(await reads(two.key.hash)).toBe(1);
  });

  it("with a bound of 0 reads every key from storage on every request", async () => {
    const { kit, counts, init } = await kitWith(0);
    await kit.authenticateKey(init.apiKey);
    const before = counts.reads;
    for (let n = 0; n < 3; n++) await kit.authenticateKey(init.apiKey);
    expect(counts.reads - before).toBe(3);
    expect(kit.access.size()).toEqual({ keys: 0, organizations: 0 });
  });
});
