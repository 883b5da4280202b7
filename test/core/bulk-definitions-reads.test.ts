/**
 * A bulk operation reads the organization's definitions (lifecycle, custom fields) once, not per
 * page: every record of one operation is judged by one set of rules, and on PostgreSQL each read
 * of the definitions version is a round trip on the bulk's connection. Counted at the port, the
 * version reads of a selectAll do not grow with its pages.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { CaseKit, Principal, Storage } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { selectPage } from "../../core/bulk/run.js";
import type { UnitOfWork } from "../../core/ports/storage.js";
import { alertRecord } from "../conformance/alert-record.js";
import { taskRecord } from "../conformance/task-record.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";

/** The storage, counting every `organizations.definitionsVersion` call its units make. */
function countingVersionReads(inner: Storage): Storage & { reads: number } {
  const counted = { reads: 0 };
  const wrap = (tx: UnitOfWork): UnitOfWork =>
    new Proxy(tx, {
      get(target, prop, receiver) {
        if (prop !== "organizations") return Reflect.get(target, prop, receiver);
        const organizations = target.organizations;
        return new Proxy(organizations, {
          get(repo, method, repoReceiver) {
            if (method !== "definitionsVersion") return Reflect.get(repo, method, repoReceiver);
            return (organizationId: string) => {
              counted.reads += 1;
              return repo.definitionsVersion(organizationId);
            };
          },
        });
      },
    });
  return Object.assign(counted, {
    transaction: ((work, options) => inner.transaction((tx) => work(wrap(tx)), options)) as Storage["transaction"],
    read: ((work) => inner.read((tx) => work(wrap(tx)))) as Storage["read"],
    migrate: () => inner.migrate(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  });
}

describe("a bulk operation's definitions reads", () => {
  let kit: CaseKit;
  let storage: ReturnType<typeof countingVersionReads>;
  let admin: Principal;
  let organizationId: string;
  let caseId: string;
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");

  beforeEach(async () => {
    const inner = createSqliteStorage({ path: ":memory:" });
    await inner.migrate();
    storage = countingVersionReads(inner);
    kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } });
    const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
    admin = await kit.authenticateKey(init.apiKey);
    organizationId = init.organization.id;
    caseId = (await kit.cases.create(admin, { title: "Phishing wave", severity: 2 })).id;
  });

  /** `count` more live alerts and tasks, written straight through the port. */
  async function seed(count: number): Promise<void> {
    const at = clock.now().toISOString();
    await storage.transaction(async (tx) => {
      for (let i = 0; i < count; i++) {
        await tx.alerts.insert(alertRecord(kit.deps.ids.next("alert"), organizationId, at, { customFields: {} }));
        await tx.tasks.insert(taskRecord(kit.deps.ids.next("task"), organizationId, caseId, at, { title: `Seeded ${i}`, tlp: 1, order: i, createdBy: admin.userId }));
      }
    });
  }

  /** The version reads one run of `operation` makes, and what it matched. */
  async function readsOf(operation: () => Promise<{ matched: number }>): Promise<{ reads: number; matched: number }> {
    const before = storage.reads;
    const { matched } = await operation();
    return { reads: storage.reads - before, matched };
  }

  it.each([
    ["alert assignment", () => kit.alerts.bulkAssign(admin, { assigneeId: admin.userId, options: { selectAll: true } })],
    ["task update", () => kit.tasks.bulkUpdate(admin, { fields: { assigneeId: admin.userId }, options: { selectAll: true } })],
  ])("the %s reads them as often over five pages as over two", async (_name, operation) => {
    await seed(selectPage + 10);
    // The definitions cache loads what it lacks with a read more: both runs measured find it warm.
    await operation();
    const two = await readsOf(operation);
    await seed(3 * selectPage);
    const five = await readsOf(operation);
    expect([two.matched, five.matched]).toEqual([selectPage + 10, 4 * selectPage + 10]);
    expect(five.reads).toBe(two.reads);
  });
});
