/**
 * The deployment's maximum of records per bulk request (config.bulkMaxRows): every bulk operation
 * (tasks update, tasks delete, alerts assign), by ids or by selectAll, is refused whole as
 * bulk_too_large above it, counted before anything changes; at or below it, it runs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { CaseKit, Principal } from "../../core/index.js";
import { createCaseKit, isCaseKitError, ManualClock } from "../../core/index.js";
import { alertRecord } from "../conformance/alert-record.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { taskRecord } from "../conformance/task-record.js";

interface World {
  kit: CaseKit;
  admin: Principal;
  organizationId: string;
  taskIds: string[];
  alertIds: string[];
}

/** A kit with `bulkMaxRows` (undefined: the default) and `rows` tasks and `rows` alerts. */
async function world(bulkMaxRows: number | undefined, rows: number): Promise<World> {
  const storage = createSqliteStorage({ path: ":memory:" });
  await storage.migrate();
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret, ...(bulkMaxRows === undefined ? {} : { bulkMaxRows }) } });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  const organizationId = init.organization.id;
  const caseId = (await kit.cases.create(admin, { title: "Phishing wave", severity: 3, tlp: 1 })).id;
  const at = clock.now().toISOString();
  const tasks = Array.from({ length: rows }, (_, i) => taskRecord(kit.deps.ids.next("task"), organizationId, caseId, at, { title: `Task ${i}`, tlp: 1 }));
  const alerts = Array.from({ length: rows }, (_, i) => alertRecord(kit.deps.ids.next("alert"), organizationId, at, { sourceRef: `ref-${i}`, tlp: 1 }));
  await kit.storage.transaction(async (tx) => {
    for (const task of tasks) await tx.tasks.insert(task);
    for (const alert of alerts) await tx.alerts.insert(alert);
  });
  return { kit, admin, organizationId, taskIds: tasks.map((t) => t.id), alertIds: alerts.map((a) => a.id) };
}

/** Everything a bulk operation could write: records, events, audit entries, the TLP audit chain. */
async function snapshot(w: World) {
  return w.kit.storage.read(async (tx) => ({
    tasks: await tx.tasks.list(w.organizationId, { maxTlp: 4 }, { limit: 5000 }),
    alerts: await tx.alerts.list(w.organizationId, { maxTlp: 4 }, { limit: 5000 }),
    events: await tx.events.list(w.organizationId, { limit: 5000 }),
    audit: await tx.audit.list(w.organizationId, { limit: 5000 }),
    tlpAudit: await tx.tlpAudit.chain(w.organizationId, 0, 5000),
  }));
}

type Operation = "tasks.update" | "tasks.delete" | "alerts.assign";
const operations: Operation[] = ["tasks.update", "tasks.delete", "alerts.assign"];

function run(w: World, operation: Operation, selection: { ids: string[] } | { options: { selectAll: true } }) {
  switch (operation) {
    case "tasks.update":
      return w.kit.tasks.bulkUpdate(w.admin, { ...selection, fields: { title: "Renamed" } });
    case "tasks.delete":
      return w.kit.tasks.bulkDelete(w.admin, selection);
    case "alerts.assign":
      return w.kit.alerts.bulkAssign(w.admin, { ...selection, assigneeId: w.admin.userId });
  }
}

async function outcome(promise: Promise<{ matched: number }>): Promise<{ matched: number } | { code: string; maxRows: number | undefined; paths: string[] }> {
  try {
    return await promise;
  } catch (error) {
    if (!isCaseKitError(error)) throw error;
    return { code: error.code, maxRows: error.maxRows, paths: (error.errors ?? []).map((e) => e.path) };
  }
}

describe("the bulk maximum (config.bulkMaxRows)", () => {
  it("property: above the maximum every bulk operation is bulk_too_large and changes nothing; at or below it, it runs", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 16 }),
        fc.constantFrom(...operations),
        fc.constantFrom("ids" as const, "all" as const),
        async (maxRows, rows, operation, kind) => {
          const w = await world(maxRows, rows);
          const ids = operation === "alerts.assign" ? w.alertIds : w.taskIds;
          if (kind === "ids" && rows === 0) return; // an empty ids list is validation_failed, another rule
          const before = await snapshot(w);
          const result = await outcome(run(w, operation, kind === "ids" ? { ids } : { options: { selectAll: true } }));
          if (rows > maxRows) {
            expect(result).toEqual({ code: "bulk_too_large", maxRows, paths: [kind === "ids" ? "ids" : "options.selectAll"] });
            expect(await snapshot(w)).toEqual(before);
          } else {
            expect(result).toMatchObject({ matched: rows });
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);

  it("defaults to 10 000: a selectAll matching 10 001 tasks is refused, one matching 10 000 runs", async () => {
    const w = await world(undefined, 10_001);
    const refused = await outcome(run(w, "tasks.update", { options: { selectAll: true } }));
    expect(refused).toMatchObject({ code: "bulk_too_large", maxRows: 10_000 });
    await w.kit.tasks.bulkDelete(w.admin, { ids: [w.taskIds[0]!] });
    expect(await outcome(run(w, "tasks.update", { options: { selectAll: true } }))).toMatchObject({ matched: 10_000, updated: 10_000 });
  }, 60_000);

  it("a figure that is not a whole number of at least 1 stops createCaseKit", () => {
    const storage = createSqliteStorage({ path: ":memory:" });
    for (const bulkMaxRows of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createCaseKit({ storage, config: { keyHashSecret, bulkMaxRows } })).toThrow(/bulkMaxRows/);
    }
  });
});
