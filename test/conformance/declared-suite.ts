/**
 * The checks every declared resource gets from its declaration alone (adapters/declare/), on any
 * dialect: tenant scoping (or reads by key alone), soft-delete invisibility, keyset cursors that
 * stay stable while records come and go, each declared filter against an in-memory model, and
 * each unique key's conflict. Records are generated from the column kinds (declared-records.ts).
 *
 *   describeDeclaredResources("sqlite", connect, resources);
 *
 * `connect` opens one connection to a database holding every resource's table, migrated and
 * empty, with foreign keys (and triggers that add rules of their own, such as append-only guards)
 * not enforced: the generated records reference parents that do not exist, and the checks are
 * about the declared SQL, not about rules the schema adds beside it. Each test runs in a
 * transaction it rolls back, each property run in a savepoint, so the database stays empty.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from "vitest";
import type { Dialect, Executor } from "../../adapters/declare/dialect.js";
import type { DeclaredRepository } from "../../adapters/declare/repository.js";
import { createRepository } from "../../adapters/declare/repository.js";
import type { Resource } from "../../adapters/declare/resource.js";
import { recordOf } from "../../adapters/declare/rows.js";
import { describeCursors } from "./declared-cursors.js";
import { describeFilters } from "./declared-filter-checks.js";
import { describeKeys } from "./declared-keys.js";
import type { Row } from "./declared-records.js";
import { byId } from "./declared-records.js";
import { describeSoftDelete } from "./declared-soft-delete.js";
import { describeTenancy } from "./declared-tenancy.js";

export interface DeclaredConnection {
  dialect: Dialect;
  /** Runs the repositories' statements on the connection. */
  executor: Executor;
  /** Runs one statement of the checks' own (BEGIN, SAVEPOINT, ROLLBACK …) on the same connection. */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

export interface DeclaredSuiteOptions {
  /** fast-check runs per property (default 12). */
  runs?: number;
}

/** What each section of checks works with, for the resource under test. */
export interface Checks {
  resource: Resource;
  runs: number;
  /** The generic repository on the test's connection, inside its transaction. */
  repo(): DeclaredRepository<Row, Record<string, unknown>>;
  connection(): DeclaredConnection;
  /** Runs one property run in a savepoint it rolls back, whatever happens. */
  inRun<T>(work: () => Promise<T>): Promise<T>;
  /** Stores `records`, every one of them. */
  store(records: readonly Row[]): Promise<void>;
  /** Every row of the table, soft-deleted ones and every tenant's, in id order. */
  rows(): Promise<Row[]>;
}

export function describeDeclaredResources(label: string, connect: () => Promise<DeclaredConnection>, resources: readonly Resource[], options: DeclaredSuiteOptions = {}): void {
  describe(`declared resources: ${label}`, () => {
    let connection: DeclaredConnection | undefined;
    beforeAll(async () => {
      connection = await connect();
    });
    afterAll(() => connection?.close());
    const current = (): DeclaredConnection => {
      if (!connection) throw new Error("casekit: the declared-resource checks have no connection");
      return connection;
    };

    for (const resource of resources) {
      describe(resource.table, () => {
        let repo: DeclaredRepository<Row, Record<string, unknown>> | undefined;
        beforeEach(async () => {
          await current().exec("BEGIN");
          const { dialect, executor } = current();
          repo = createRepository(resource, dialect, executor, { open: true, writable: true }) as unknown as DeclaredRepository<Row, Record<string, unknown>>;
        });
        afterEach(() => current().exec("ROLLBACK"));

        const checks: Checks = {
          resource,
          runs: options.runs ?? 12,
          repo: () => repo!,
          connection: current,
          async inRun(work) {
            await current().exec("SAVEPOINT declared_run");
            try {
              return await work();
            } finally {
              await current().exec("ROLLBACK TO SAVEPOINT declared_run");
              await current().exec("RELEASE SAVEPOINT declared_run");
            }
          },
          async store(records) {
            expect(await repo!.insertMany(records), "every generated record is written").toBe(records.length);
          },
          async rows() {
            const found = await current().executor.all(`SELECT ${resource.fields.map((f) => f.name).join(", ")} FROM ${resource.table}`, []);
            return byId(resource, found.map((row) => recordOf<Row>(resource, row)));
          },
        };
        describeTenancy(checks);
        if (resource.softDelete) describeSoftDelete(checks);
        describeCursors(checks);
        describeFilters(checks);
        describeKeys(checks);
      });
    }
  });
}
