// Reads never wait behind a unit of work on SQLite: on a WAL file they run on reader connections,
// each unit on one committed snapshot; a long unit lets the event loop take turns.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, get } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Organization, Storage } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { SqliteStorageOptions } from "../../adapters/sqlite/index.js";
import { createFixtures, sleep } from "../conformance/fixtures.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

const dir = mkdtempSync(join(tmpdir(), "casekit-readers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `db-${++files}.sqlite`);

const opened: Storage[] = [];
const handles: Database.Database[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  for (const db of handles.splice(0)) db.close();
});

async function storageWithOrganization(options: SqliteStorageOptions): Promise<{ storage: Storage; org: Organization; f: ReturnType<typeof createFixtures> }> {
  const storage = createSqliteStorage(options);
  opened.push(storage);
  await storage.migrate();
  const f = createFixtures();
  const org = f.organization();
  await storage.transaction((tx) => tx.organizations.insert(org));
  return { storage, org, f };
}

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

/**
 * Holds the writer for `holdMs` inside a unit that has inserted a case, while `reads` run; answers
 * the order in which things finished and what the reads saw.
 */
async function readsDuringHeldUnit(storage: Storage, org: Organization, f: ReturnType<typeof createFixtures>, holdMs: number) {
  const record = f.caseRecord(org.id);
  const finished: string[] = [];
  const inserted = signal();
  const unit = storage
    .transaction(async (tx) => {
      await tx.cases.insert(record);
      inserted.fire();
      await sleep(holdMs);
    })
    .then(() => finished.push("unit"));
  await inserted.promise;
  const reads = Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      storage
        .read((tx) => tx.cases.findById(org.id, record.id))
        .then((found) => {
          finished.push(`read ${i}`);
          return found;
        }),
    ),
  );
  const ping = storage.ping().then(() => finished.push("ping"));
  const seen = await reads;
  await Promise.all([unit, ping]);
  return { finished, seen, record };
}

describe("SQLite reader connections", () => {
  it("a file database answers reads and ping while a unit of work holds the writer, without its uncommitted rows", async () => {
    const { storage, org, f } = await storageWithOrganization({ path: freshFile() });
    const { finished, seen, record } = await readsDuringHeldUnit(storage, org, f, 1000);
    expect(finished.at(-1)).toBe("unit");
    expect(seen).toEqual(Array(10).fill(null));
    expect(await storage.read((tx) => tx.cases.findById(org.id, record.id))).toStrictEqual(record);
  });

  it("ping answers at once while every reader is held by a long read unit, and the held reads are unharmed", async () => {
    const { storage, org, f } = await storageWithOrganization({ path: freshFile() });
    const record = f.caseRecord(org.id);
    await storage.transaction((tx) => tx.cases.insert(record));
    const finished: string[] = [];
    const held = Array.from({ length: 4 }, (_, i) =>
      storage
        .read(async (tx) => {
          await sleep(300);
          return tx.cases.findById(org.id, record.id);
        })
        .then((found) => (finished.push(`read ${i}`), found)),
    );
    await sleep(20);
    await storage.ping();
    finished.push("ping");
    expect(await Promise.all(held)).toEqual(Array(4).fill(record));
    expect(finished[0]).toBe("ping");
  });

  it("a caller's connection to a file gets readers on the same file (its name)", async () => {
    const db = new Database(freshFile());
    handles.push(db);
    const { storage, org, f } = await storageWithOrganization({ database: db });
    const { finished, seen } = await readsDuringHeldUnit(storage, org, f, 300);
    expect(finished.at(-1)).toBe("unit");
    expect(seen).toEqual(Array(10).fill(null));
  });

  it("in memory (no second connection can see the database), reads share the writer's queue and wait", async () => {
    const { storage, org, f } = await storageWithOrganization({ path: ":memory:" });
    const { finished, seen, record } = await readsDuringHeldUnit(storage, org, f, 50);
    // Queued behind the unit, the reads run after its commit and see it; ping needs no queue.
    expect(finished.filter((name) => name !== "ping")[0]).toBe("unit");
    expect(seen).toEqual(Array(10).fill(record));
  });

  it("with readers: 0, a file database reads through the writer's queue too", async () => {
    const { storage, org, f } = await storageWithOrganization({ path: freshFile(), readers: 0 });
    const { finished } = await readsDuringHeldUnit(storage, org, f, 50);
    expect(finished.filter((name) => name !== "ping")[0]).toBe("unit");
  });

  it("a read keeps the snapshot it started on: a commit during it stays unseen, a read started after sees it", async () => {
    const { storage, org, f } = await storageWithOrganization({ path: freshFile() });
    const record = f.caseRecord(org.id);
    const started = signal();
    const committed = signal();
    const before = storage.read(async (tx) => {
      // No statement yet: the snapshot must still be the one of the unit's start.
      started.fire();
      await committed.promise;
      const found = await tx.cases.findById(org.id, record.id);
      const listed = await tx.cases.list(org.id, { maxTlp: 4 }, { limit: 10 });
      return { found, listed };
    });
    await started.promise;
    await storage.transaction((tx) => tx.cases.insert(record));
    const after = storage.read((tx) => tx.cases.findById(org.id, record.id));
    committed.fire();
    expect(await before).toEqual({ found: null, listed: [] });
    expect(await after).toStrictEqual(record);
  });

  it("readers never write: a write inside read() is refused", async () => {
    const { storage, f } = await storageWithOrganization({ path: freshFile() });
    await expect(storage.read((tx) => tx.organizations.insert(f.organization()))).rejects.toThrow(/read-only/);
  });

  it("close() lets running reads finish, then refuses new ones", async () => {
    const { storage, org } = await storageWithOrganization({ path: freshFile() });
    const read = storage.read(async (tx) => {
      await sleep(20);
      return tx.organizations.findById(org.id);
    });
    const closed = storage.close();
    expect(await read).toStrictEqual(org);
    await closed;
    await expect(storage.read(async () => 1)).rejects.toMatchObject({ code: "unavailable" });
  });
});

describe("a long unit of work lets the event loop take turns", () => {
  it("a timer due during a unit of thousands of synchronous statements fires before the unit ends", async () => {
    const { storage, org } = await storageWithOrganization({ path: freshFile() });
    const events: string[] = [];
    setTimeout(() => events.push("timer"), 0);
    await storage.transaction(async (tx) => {
      // About half a second of statements, each answered at once: only microtasks in between.
      const end = performance.now() + 500;
      while (performance.now() < end) await tx.organizations.findById(org.id);
      events.push("unit");
    });
    expect(events).toEqual(["timer", "unit"]);
  });

  it("connections opened all at once during a long unit are each accepted and answered before it ends", async () => {
    // libuv accepts one new connection per event-loop turn: the server takes them in only as
    // fast as the unit gives turns (yielding-unit.ts), so this fails with 10 ms slices.
    const { storage, org } = await storageWithOrganization({ path: freshFile() });
    const server = createServer((_request, response) => {
      void storage.read((tx) => tx.organizations.findById(org.id)).then((found) => response.end(found?.id ?? ""));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const order: string[] = [];
      const holding = signal();
      const unit = storage
        .transaction(async (tx) => {
          holding.fire();
          const end = performance.now() + 600;
          while (performance.now() < end) await tx.organizations.findById(org.id);
        })
        .then(() => order.push("unit"));
      await holding.promise;
      const connections = 30;
      const answers = Array.from({ length: connections }, () => getOnNewConnection(port).then((body) => order.push(body === org.id ? "answer" : `wrong: ${body}`)));
      await Promise.all([unit, ...answers]);
      expect(order).toEqual([...Array.from({ length: connections }, () => "answer"), "unit"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** The body of a GET sent on a connection of its own. */
function getOnNewConnection(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = get({ host: "127.0.0.1", port, agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve(body));
    });
    request.on("error", reject);
  });
}

describe("requests that only read do not wait for the writer", () => {
  it("authenticating a key due for its lastUsedAt touch, and the health check, answer while a unit holds the writer", async () => {
    const storage = createSqliteStorage({ path: freshFile() });
    opened.push(storage);
    await storage.migrate();
    const clock = new ManualClock("2026-03-01T12:00:00.000Z");
    const kit = createCaseKit({ storage, clock, passwordHasher: fastPasswordHasher, config: { keyHashSecret: "readers-test-secret-0123456789abcdef" } });
    const { apiKey } = await kit.setup.initOrganization({ organizationName: "Readers SOC", email: "ops@readers.test" });
    await kit.authenticateKey(apiKey);
    clock.advance(120_000); // lastUsedAt is due for a write again

    const finished: string[] = [];
    const holding = signal();
    const unit = storage
      .transaction(async () => {
        holding.fire();
        await sleep(500);
      })
      .then(() => finished.push("unit"));
    await holding.promise;
    const principal = await kit.authenticateKey(apiKey);
    finished.push("authenticated");
    await kit.health.check(principal);
    finished.push("health");
    await unit;
    expect(finished).toEqual(["authenticated", "health", "unit"]);
  });
});
