/**
 * On PostgreSQL a long unit (a selectAll bulk) shares the event loop with every request, so it
 * gives way to the other units (adapters/shared/short-units-first.ts): its statements wait while
 * a read, an ordinary transaction or an access-version read is in flight; ordinary units never
 * wait for each other; `giveWayMs: 0` turns it off.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import type { Storage } from "../../core/index.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";
import { settledWithin } from "../helpers/settled-within.js";

const schemas: string[] = [];
const storages: Storage[] = [];
afterAll(async () => {
  for (const storage of storages) await storage.close();
  const pool = new pg.Pool({ connectionString: postgresUrl });
  for (const schema of schemas) await pool.query(`drop schema if exists "${schema}" cascade`);
  await pool.end();
});

async function storageWith(giveWayMs: number): Promise<Storage> {
  const schema = freshSchemaName("casekit_long_units");
  schemas.push(schema);
  const storage = createPostgresStorage({ connectionString: postgresUrl, schema, giveWayMs });
  storages.push(storage);
  await storage.migrate();
  return storage;
}

/** A promise and its resolver: short work held open until the test lets it end. */
function hold(): { held: Promise<void>; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { held, release };
}

/** A read unit held open until `release()`; `done` settles once it has ended. */
function heldRead(storage: Storage): { done: Promise<unknown>; release: () => void } {
  const { held, release } = hold();
  const done = storage.read(async (tx) => {
    await tx.organizations.idsAfter("", 1);
    await held;
  });
  return { done, release };
}

/** A long unit of one statement, resolved once that statement has answered. */
const longStatement = (storage: Storage) => storage.transaction(async (tx) => (await tx.organizations.idsAfter("", 1)).length, { long: true });

describe.runIf(await postgresShouldRun("postgres-long-units"))("PostgreSQL: long units give way to short ones", () => {
  it("a long unit's statement waits while a read is in flight, and goes once it has ended", async () => {
    const storage = await storageWith(60_000);
    const reading = heldRead(storage);
    const long = longStatement(storage);
    expect(await settledWithin(long, 200)).toBe(false);
    reading.release();
    await reading.done;
    expect(await settledWithin(long, 5_000)).toBe(true);
  });

  it("waits alike for an ordinary transaction and an access-version read, never the other way round", async () => {
    const storage = await storageWith(60_000);
    const { held, release } = hold();
    const writing = storage.transaction(async (tx) => {
      await tx.organizations.idsAfter("", 1);
      await held;
    });
    const long = longStatement(storage);
    // Ordinary units go while the long one waits: a read, a transaction, the access version.
    expect(await settledWithin(storage.read((tx) => tx.organizations.idsAfter("", 1)), 5_000)).toBe(true);
    expect(await settledWithin(storage.transaction((tx) => tx.organizations.idsAfter("", 1)), 5_000)).toBe(true);
    expect(await settledWithin(storage.accessVersion!("org_missing"), 5_000)).toBe(true);
    expect(await settledWithin(long, 100)).toBe(false);
    release();
    await writing;
    expect(await settledWithin(long, 5_000)).toBe(true);
  });

  it("waits while an access-version read is in flight, on its own", async () => {
    // A pool whose access-version reads answer only when the test lets them.
    const pool = new pg.Pool({ connectionString: postgresUrl });
    const schema = freshSchemaName("casekit_long_units");
    schemas.push(schema);
    const { held, release } = hold();
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, callback: unknown) => {
      const text = (config as { text?: string }).text ?? "";
      if (!text.includes("access_version")) return query(config, callback);
      void held.then(() => query(config, callback));
      return undefined;
    };
    const storage = createPostgresStorage({ pool, schema, giveWayMs: 60_000 });
    try {
      await storage.migrate();
      const version = storage.accessVersion!("org_missing");
      const long = longStatement(storage);
      expect(await settledWithin(long, 200)).toBe(false);
      release();
      expect(await version).toBeNull();
      expect(await settledWithin(long, 5_000)).toBe(true);
    } finally {
      await storage.close();
      await pool.end();
    }
  });

  it("waits for a short unit only for its first giveWayMs: one the long unit blocks never stops it", async () => {
    const storage = await storageWith(50);
    const stuck = heldRead(storage);
    expect(await settledWithin(longStatement(storage), 5_000)).toBe(true);
    // The stuck read is past its time: the next long unit does not wait for it at all.
    expect(await settledWithin(longStatement(storage), 5_000)).toBe(true);
    stuck.release();
    await stuck.done;
  });

  it("with giveWayMs 0, a long unit never waits", async () => {
    const storage = await storageWith(0);
    const reading = heldRead(storage);
    expect(await settledWithin(longStatement(storage), 5_000)).toBe(true);
    reading.release();
    await reading.done;
  });
});
