// Storages of one process on the same database file take turns as writers without holding the
// event loop (adapters/sqlite/file-writers.ts): before, a second storage's BEGIN IMMEDIATE waited
// synchronously for the first one's open transaction, which needed that very thread to finish,
// and failed after the busy timeout with "database is locked".
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createFixtures, sleep } from "../conformance/fixtures.js";

const scratch = mkdtempSync(join(tmpdir(), "casekit-file-writers-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

describe("two storages of one process on one file", () => {
  it.each([false, true])("a unit of one that awaits a timer mid-transaction (long: %s) and a unit of the other both commit, one after the other", async (long) => {
    const path = join(scratch, `db-${++files}.sqlite`);
    const a = createSqliteStorage({ path });
    await a.migrate();
    const b = createSqliteStorage({ path });
    await b.migrate();
    const f = createFixtures();
    const org = f.organization();
    await a.transaction((tx) => tx.organizations.insert(org));
    const order: string[] = [];
    let started!: () => void;
    const inside = new Promise<void>((resolve) => (started = resolve));
    const first = a.transaction(
      async (tx) => {
        await tx.users.insert(f.user(org.id));
        started();
        await sleep(50); // the transaction stays open across turns of the event loop
        await tx.users.insert(f.user(org.id));
        order.push("a");
      },
      long ? { long: true } : undefined,
    );
    await inside;
    const second = b.transaction(async (tx) => {
      await tx.users.insert(f.user(org.id));
      order.push("b");
    });
    // The old way: the second's BEGIN waited on the main thread until the busy timeout, and failed.
    await Promise.all([first, second]);
    expect(order).toEqual(["a", "b"]);
    expect(await b.read((tx) => tx.users.list(org.id, {}, { limit: 10 }))).toHaveLength(3);
    await a.close();
    await b.close();
  });
});
