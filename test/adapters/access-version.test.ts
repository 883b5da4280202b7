/**
 * The access version suite on SQLite: three storages on one database file, as three processes on
 * one host would open it (test/conformance/access-version-suite.ts says what it proves); and the
 * version read of the SQLite adapter, which neither waits for the readers nor sees their snapshots.
 */
import { describe, expect, it } from "vitest";
import { describeAccessVersion } from "../conformance/access-version-suite.js";
import { sqliteSharedFile } from "../helpers/sqlite-hosts.js";

const shared = sqliteSharedFile("casekit-access-");

describeAccessVersion("SQLite, three storages on one file", shared.hosts((host) => ({ accessCacheEntries: host < 2 ? 10_000 : 0 })));

describe("SQLite: the version read", () => {
  it("answers a cached key while every reader is busy, and sees a change committed meanwhile", async () => {
    const [a, b] = await shared.kits(2, { readers: 2 });
    const init = await a!.setup.initOrganization({ organizationName: "Snapshot SOC", email: "admin@snapshot.test" });
    const admin = await a!.authenticateKey(init.apiKey);
    const key = await a!.keys.create(admin, { name: "held", scopes: ["cases:read"] });
    await b!.authenticateKey(key.key); // B caches the key

    // Both of B's readers open a snapshot now and keep it until released.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = [0, 1].map(() => b!.storage.read(async (tx) => (await tx.organizations.findById(init.organization.id), await gate)));
    try {
      await new Promise((resolve) => setImmediate(resolve));
      // An unchanged key is answered at once: its check queues behind no read unit.
      let answered = false;
      await Promise.race([b!.authenticateKey(key.key).then(() => (answered = true)), new Promise((resolve) => setTimeout(resolve, 200))]);
      expect(answered).toBe(true);

      await a!.keys.changeStatus(admin, key.id, "suspend");
      const next = b!.authenticateKey(key.key);
      release();
      await expect(next).rejects.toMatchObject({ code: "key_suspended" });
    } finally {
      release();
      await Promise.allSettled(held);
    }
  });
});
