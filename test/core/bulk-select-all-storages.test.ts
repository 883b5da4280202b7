/**
 * A selectAll bulk on the storages that run its statements off the thread (SQLite's long units in
 * a worker, PostgreSQL), where it reads its next page while it writes the current one and hands
 * its event's items to storage page by page (core/bulk/run.ts): every record is changed once,
 * readers see one audit entry and one event per record with the record as changed, and a fault on
 * a page after a chunk row of the event's items was written leaves nothing that readers see.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { Storage, UnitOfWork } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { selectPage } from "../../core/bulk/run.js";
import { itemsPerRow } from "../../core/log/groups.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";
import { unitWith } from "../helpers/unit-with.js";

const postgres = await postgresShouldRun("bulk select-all on PostgreSQL");
const dir = mkdtempSync(join(tmpdir(), "casekit-bulk-storages-"));
const schemas: string[] = [];
afterAll(async () => {
  if (schemas.length > 0) {
    const pool = new pg.Pool({ connectionString: postgresUrl });
    for (const schema of schemas) await pool.query(`drop schema if exists "${schema}" cascade`);
    await pool.end();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Pages past the first chunk row's worth of event items (written while page 9 is), the last page short. */
const alertCount = 9 * selectPage + 17;
const pageAfterFirstChunk = Math.ceil((itemsPerRow + 1) / selectPage) + 1;
const lastPage = Math.ceil(alertCount / selectPage);

/**
 * `storage` whose `transaction` fails a unit's `failOnSave`-th page save (counting from 1), when
 * set: at once, or `late`: after the page's statement ran, so the failure arrives while the pages
 * after it are being read and applied (a page is applied while the one before it is written).
 */
function withFaults(storage: Storage): { storage: Storage; failOnSave: (n: number | undefined, late?: boolean) => void } {
  let failAt: number | undefined;
  let failLate = false;
  const wrapped = Object.create(storage, {
    transaction: {
      value: <T>(work: (tx: UnitOfWork) => Promise<T>, options?: { long?: boolean }) =>
        storage.transaction((tx) => {
          if (failAt === undefined) return work(tx);
          let saves = 0;
          const alerts = Object.create(tx.alerts, {
            assignMany: {
              value: async (...args: Parameters<UnitOfWork["alerts"]["assignMany"]>) => {
                if (++saves !== failAt) return tx.alerts.assignMany(...args);
                if (failLate) await tx.alerts.assignMany(...args);
                throw new Error("fault on a later page");
              },
            },
          }) as UnitOfWork["alerts"];
          return work(unitWith(tx, { alerts }));
        }, options),
    },
  }) as Storage;
  return {
    storage: wrapped,
    failOnSave: (n, late = false) => {
      failAt = n;
      failLate = late;
    },
  };
}

async function exercise(storage: Storage): Promise<void> {
  await storage.migrate();
  const faults = withFaults(storage);
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage: faults.storage, clock: new ManualClock("2026-03-01T12:00:00.000Z"), config: { keyHashSecret, bulkMaxRows: 100_000 } });
  try {
    const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
    const admin = await kit.authenticateKey(init.apiKey);
    const organizationId = init.organization.id;
    const other = await kit.users.create(admin, { email: "analyst@acme.test", name: "Analyst", role: "analyst" });
    for (let start = 0; start < alertCount; start += 500) {
      await Promise.all(Array.from({ length: Math.min(500, alertCount - start) }, (_, i) => kit.alerts.create(admin, { title: `alert ${start + i}`, source: "edr", sourceRef: `ref-${start + i}`, severity: 2 })));
    }
    const eventRows = () => storage.read(async (tx) => (await tx.events.list(organizationId, { limit: 5 })).filter((e) => e.bulkRequestId !== null));

    // A fault on the save of the page after the first chunk row, or of the last page (found once
    // every page was sent), at once or after its statement ran: nothing of the bulk is left, the
    // chunk rows included.
    expect(alertCount).toBeGreaterThan((pageAfterFirstChunk - 1) * selectPage);
    for (const page of [pageAfterFirstChunk, lastPage]) {
      for (const late of [false, true]) {
        faults.failOnSave(page, late);
        await expect(kit.alerts.bulkAssign(admin, { options: { selectAll: true }, assigneeId: other.id })).rejects.toThrow("fault on a later page");
        faults.failOnSave(undefined);
        const untouched = await storage.read((tx) => tx.alerts.list(organizationId, { maxTlp: 4 }, { limit: alertCount }));
        expect(untouched.filter((a) => a.assigneeId !== null)).toEqual([]);
        expect(await eventRows()).toEqual([]);
      }
    }

    // Reads in flight all along (three readers, each starting its next read as its last ends): on
    // PostgreSQL the bulk's statements give way to them (adapters/shared/short-units-first.ts),
    // and still go in the order the bulk sent them.
    let reading = true;
    let reads = 0;
    const readers = Array.from({ length: 3 }, async () => {
      while (reading) {
        await storage.read((tx) => tx.alerts.list(organizationId, { maxTlp: 4 }, { limit: 5 }));
        reads++;
        // A read on SQLite settles without a turn of the event loop: one per read, as requests take.
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    const result = await kit.alerts.bulkAssign(admin, { options: { selectAll: true }, assigneeId: other.id }).finally(() => (reading = false));
    await Promise.all(readers);
    expect(reads).toBeGreaterThan(0);
    expect(result).toMatchObject({ matched: alertCount, assigned: alertCount, skipped: [] });
    const after = await storage.read((tx) => tx.alerts.list(organizationId, { maxTlp: 4 }, { limit: alertCount }));
    expect(after).toHaveLength(alertCount);
    expect(after.every((a) => a.assigneeId === other.id)).toBe(true);

    // One event row for the bulk, read as one event per alert, each the alert as it was changed.
    const group = await storage.read(async (tx) => {
      const [newest] = await tx.events.list(organizationId, { limit: 1 });
      return tx.events.findRow(organizationId, newest!.id.split(".")[0]!);
    });
    expect(group).toHaveLength(alertCount);
    const byId = new Map(after.map((a) => [a.id, a]));
    for (const event of group!) {
      expect(event.bulkRequestId).toBe(result.bulkRequestId);
      expect(event.payload).toEqual(JSON.parse(JSON.stringify(byId.get(event.resourceId))));
    }
    expect(new Set(group!.map((e) => e.resourceId)).size).toBe(alertCount);
    const audit = await storage.read((tx) => tx.audit.list(organizationId, { limit: alertCount + 5 }));
    expect(audit.filter((e) => e.bulkRequestId === result.bulkRequestId)).toHaveLength(alertCount);
  } finally {
    await storage.close();
  }
}

describe("a selectAll bulk where statements run off the thread", () => {
  it("SQLite file (long units in a worker)", async () => {
    await exercise(createSqliteStorage({ path: join(dir, "bulk.db") }));
  }, 120_000);

  describe.runIf(postgres)("PostgreSQL", () => {
    it("PostgreSQL", async () => {
      const schema = freshSchemaName("casekit_bulk_all");
      schemas.push(schema);
      await exercise(createPostgresStorage({ connectionString: postgresUrl, schema }));
    }, 120_000);
  });
});
