/**
 * The storage conformance suite: one set of named tests every adapter of the core's storage port
 * must pass (core/ports/storage.ts). It talks to the adapter only through the port.
 *
 *   describeStorage("sqlite (memory)", async () => createSqliteStorage({ path: ":memory:" }));
 *
 * `makeStorage` gives a fresh, empty database for each test; the suite calls `migrate()` itself
 * (migrations are idempotent, so an already-migrated storage is fine too). `cleanup` runs after
 * each test; by default it closes the storage. `options.raw` gives the suite SQL access to the
 * database behind a storage (see RawAccess in suite-context.ts), which the tests of the TLP audit
 * log's guards and tamper detection and of stored policies need:
 *
 *   describeStorage("sqlite (memory)", make, close, { raw: (storage) => rawAccessOf(storage) });
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Organization, Storage } from "../../core/index.js";
import type { Fixtures } from "./fixtures.js";
import { createFixtures } from "./fixtures.js";
import { describeAlertMetric } from "./suite-alert-metric.js";
import { describeAuditEvents } from "./suite-audit-events.js";
import { describeAlerts } from "./suite-alerts.js";
import { describeCases } from "./suite-cases.js";
import { describeCustomFields } from "./suite-custom-fields.js";
import { describeComments } from "./suite-comments.js";
import { describeAccount } from "./suite-account.js";
import type { RawAccess, StorageSuiteOptions, SuiteContext } from "./suite-context.js";
import { describeLifecycles } from "./suite-lifecycles.js";
import { describeLists } from "./suite-lists.js";
import { describeGroupRows } from "./suite-group-rows.js";
import { describeLogs } from "./suite-log.js";
import { describeObservables } from "./suite-observables.js";
import { describeRecords } from "./suite-records.js";
import { describeTasks } from "./suite-tasks.js";
import { describeTeams } from "./suite-teams.js";
import { describeTlpAudit } from "./suite-tlp-audit.js";
import { describeUnits } from "./suite-units.js";
import { describeWebhooks } from "./suite-webhooks.js";
import { describeAuditSinks } from "./suite-audit-sinks.js";

export type { RawAccess, StorageSuiteOptions } from "./suite-context.js";

export function describeStorage(
  name: string,
  makeStorage: () => Promise<Storage>,
  cleanup: (storage: Storage) => Promise<void> = (storage) => storage.close(),
  options: StorageSuiteOptions = {},
): void {
  describe(`storage conformance: ${name}`, () => {
    let storage: Storage | undefined;
    let fixtures: Fixtures | undefined;
    let raw: RawAccess | undefined;

    beforeEach(async () => {
      storage = await makeStorage();
      await storage.migrate();
      fixtures = createFixtures();
    });

    afterEach(async () => {
      const current = storage;
      storage = undefined;
      fixtures = undefined;
      raw = undefined;
      if (current) await cleanup(current);
    });

    const ctx: SuiteContext = {
      passwordHasher: options.passwordHasher,
      storage() {
        if (!storage) throw new Error("no storage: used outside a test");
        return storage;
      },
      fixtures() {
        if (!fixtures) throw new Error("no fixtures: used outside a test");
        return fixtures;
      },
      raw() {
        if (!options.raw) throw new Error(`describeStorage("${name}") was given no options.raw: this test needs raw SQL access to the database`);
        raw ??= options.raw(ctx.storage());
        return raw;
      },
      async seedOrganization(overrides: Partial<Organization> = {}) {
        const f = ctx.fixtures();
        const org = f.organization(overrides);
        const user = f.user(org.id, { role: "admin", tlpClearance: 4 });
        await ctx.storage().transaction(async (tx) => {
          await tx.organizations.insert(org);
          await tx.users.insert(user);
        });
        return { org, user };
      },
    };

    describe("migrations and health", () => {
      it("migrate() is idempotent: running it again keeps the schema and the data", async () => {
        const { org, user } = await ctx.seedOrganization();
        await ctx.storage().migrate();
        await ctx.storage().migrate();
        expect(await ctx.storage().read((tx) => tx.organizations.findById(org.id))).toStrictEqual(org);
        expect(await ctx.storage().read((tx) => tx.users.findById(org.id, user.id))).toStrictEqual(user);
        const record = ctx.fixtures().caseRecord(org.id);
        await ctx.storage().transaction((tx) => tx.cases.insert(record));
        expect(await ctx.storage().read((tx) => tx.cases.findById(org.id, record.id))).toStrictEqual(record);
      });

      it("ping() resolves on a working database", async () => {
        await expect(ctx.storage().ping()).resolves.toBeUndefined();
      });
    });

    describeRecords(ctx);
    describeLists(ctx);
    describeTeams(ctx);
    describeLifecycles(ctx);
    describeCases(ctx);
    describeCustomFields(ctx);
    describeObservables(ctx);
    describeTasks(ctx);
    describeAlerts(ctx);
    describeAlertMetric(ctx);
    describeComments(ctx);
    describeLogs(ctx);
    describeAuditEvents(ctx);
    describeGroupRows(ctx);
    describeTlpAudit(ctx);
    describeAccount(ctx);
    describeUnits(ctx);
    describeWebhooks(ctx);
    describeAuditSinks(ctx);
  });
}
