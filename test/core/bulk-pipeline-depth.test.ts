/**
 * How far a selectAll bulk runs ahead of its writes (core/bulk/run.ts, `process`): as many pages'
 * saves pending at once as the storage declares (Storage.bulkPagesInFlight; 2 when it declares
 * none), never more. SQLite declares 3: with two, the previous page's items queued behind the
 * current page's save and the walk waited for both (its worker and the main thread each sat idle
 * about half of a bulk). More would hold more pages' records for nothing.
 *
 * The saves here settle only when released: the oldest once the walk has stopped sending (nothing
 * for 50 ms; a page's JavaScript takes a few), so the walk goes as deep as it will, and no deeper.
 */
import { describe, expect, it } from "vitest";
import type { Storage, UnitOfWork } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { selectPage } from "../../core/bulk/run.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { migratedMemoryDatabase } from "../helpers/migrated-sqlite.js";
import { unitWith } from "../helpers/unit-with.js";

const alertCount = 6 * selectPage + 3;

/**
 * `storage` whose long units' alert saves wait to be released, declaring `depth` pages in flight
 * (none when undefined); `mostPending` is the deepest the walk went.
 */
function gatedSaves(storage: Storage, depth: number | undefined) {
  const held: (() => void)[] = [];
  const gate = { mostPending: 0, saves: 0 };
  let stallTimer: NodeJS.Timeout | undefined;
  const releaseOldest = () => held.shift()?.();
  const watchForStall = () => {
    clearTimeout(stallTimer);
    // The walk sends nothing more until a save settles: let the oldest go.
    stallTimer = setTimeout(() => {
      releaseOldest();
      if (held.length > 0) watchForStall();
    }, 50);
  };
  const wrapped = Object.create(storage, {
    bulkPagesInFlight: { value: depth },
    transaction: {
      value: <T>(work: (tx: UnitOfWork) => Promise<T>, options?: { long?: boolean }) =>
        storage.transaction((tx) => {
          if (!options?.long) return work(tx);
          const alerts = Object.create(tx.alerts, {
            assignMany: {
              value: async (...args: Parameters<UnitOfWork["alerts"]["assignMany"]>) => {
                await tx.alerts.assignMany(...args);
                gate.saves += 1;
                await new Promise<void>((release) => {
                  held.push(release);
                  gate.mostPending = Math.max(gate.mostPending, held.length);
                  watchForStall();
                });
              },
            },
          }) as UnitOfWork["alerts"];
          return work(unitWith(tx, { alerts }));
        }, options),
    },
  }) as Storage;
  return { storage: wrapped, gate };
}

describe("a selectAll bulk's pipeline", () => {
  it("SQLite lets three pages' writes be in flight", () => {
    const storage = createSqliteStorage({ path: ":memory:" });
    expect(storage.bulkPagesInFlight).toBe(3);
    return storage.close();
  });

  it.each([
    ["the storage's declared three", 3, 3],
    ["two where the storage declares none", undefined, 2],
  ])("keeps %s pages' saves pending while it reads and applies the next, never more", async (_name, depth, expected) => {
    const inner = createSqliteStorage({ database: await migratedMemoryDatabase() });
    await inner.migrate();
    const { storage, gate } = gatedSaves(inner, depth);
    const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock: new ManualClock("2026-03-01T12:00:00.000Z"), config: { keyHashSecret, bulkMaxRows: 100_000 } });
    const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
    const admin = await kit.authenticateKey(init.apiKey);
    const analyst = await kit.users.create(admin, { email: "analyst@acme.test", name: "Analyst", role: "analyst" });
    for (let start = 0; start < alertCount; start += 500) {
      await Promise.all(Array.from({ length: Math.min(500, alertCount - start) }, (_, i) => kit.alerts.create(admin, { title: `alert ${start + i}`, source: "edr", severity: 2 })));
    }

    const result = await kit.alerts.bulkAssign(admin, { options: { selectAll: true }, assigneeId: analyst.id });

    expect(result).toMatchObject({ matched: alertCount, assigned: alertCount, skipped: [] });
    expect(gate.saves).toBe(Math.ceil(alertCount / selectPage));
    expect(gate.mostPending).toBe(expected);
    const after = await inner.read((tx) => tx.alerts.list(init.organization.id, { maxTlp: 4 }, { limit: alertCount }));
    expect(after.filter((a) => a.assigneeId === analyst.id)).toHaveLength(alertCount);
  });
});
