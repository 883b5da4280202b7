import { expect } from "vitest";
import type { CaseKitError, Organization, PageRequest, PasswordHasher, Storage, StoredUser } from "../../core/index.js";
import { isCaseKitError } from "../../core/index.js";
import type { Fixtures } from "./fixtures.js";
import { findUndefined } from "./fixtures.js";

/**
 * Direct access to the database behind one storage, around the port: what the suite needs to
 * corrupt rows on purpose (a NULL policy from before the column, a tampered TLP audit entry) and
 * to check that the append-only guards refuse what the port never does.
 *
 * The suite calls these only between units of work, never inside one, and writes portable SQL:
 * unquoted snake_case table and column names (the declared ones, adapters/resources/), plain
 * `UPDATE … SET … WHERE` / `DELETE FROM … WHERE`, `NULL` and text literals in single quotes, and
 * `?` placeholders numbered by position (a PostgreSQL hook rewrites them to $1, $2 …; the suite
 * never puts a `?` inside a literal). Parameters are strings, numbers or null. JSON columns get
 * JSON text.
 */
export interface RawAccess {
  /**
   * Runs one statement, outside any unit of work (autocommit), on the storage's database. Rejects
   * with the database's error when the statement fails; an append-only guard's refusal must say
   * "append-only" in its message.
   */
  exec(sql: string, params?: readonly unknown[]): Promise<void>;
  /** Lifts the guards that refuse UPDATE and DELETE on tlp_audit_log and audit_log, until `enableAuditGuards`. */
  disableAuditGuards(): Promise<void>;
  /** Puts the guards back exactly as the migrations made them. Idempotent. */
  enableAuditGuards(): Promise<void>;
}

export interface StorageSuiteOptions {
  /**
   * The raw access for `storage` (the current test's, as `makeStorage` made it). Without it the
   * tests that need raw SQL fail, saying so: the suite has no skips.
   */
  raw?: (storage: Storage) => RawAccess;
  /**
   * The password hasher of the kits some sections build on the storage (scrypt, the package's
   * default, when omitted). A test suite may pass a fast one; it never changes what is checked.
   */
  passwordHasher?: PasswordHasher;
}

/** What every section of the suite works with; the getters return the current test's values. */
export interface SuiteContext {
  storage(): Storage;
  fixtures(): Fixtures;
  /** The adapter's raw access to the current storage (StorageSuiteOptions.raw); throws without one. */
  raw(): RawAccess;
  /** StorageSuiteOptions.passwordHasher, for the kits a section builds (undefined: scrypt). */
  passwordHasher: PasswordHasher | undefined;
  /** Inserts an organization and one active user of it, in one unit of work. */
  seedOrganization(overrides?: Partial<Organization>): Promise<{ org: Organization; user: StoredUser }>;
}

/** Text that betrays a database error message or SQL. */
const sqlish = /insert\s+into|select\s|update\s+\w+\s+set|constraint|sqlite|duplicate key|violates|\bsql\b|_unique|organization_id|`/i;

/** Awaits `promise`, expecting it to reject with CaseKitError("conflict") worded without SQL. */
export async function expectConflict(promise: Promise<unknown>): Promise<CaseKitError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, "expected a rejection").not.toBeNull();
  expect(isCaseKitError(error), `expected a CaseKitError, got ${String(error)}`).toBe(true);
  const conflict = error as CaseKitError;
  expect(conflict.code).toBe("conflict");
  expect(conflict.message.length).toBeGreaterThan(0);
  expect(conflict.message).not.toMatch(sqlish);
  return conflict;
}

/** Fails on any `undefined` anywhere in `value` (the port promises `null`). */
export function expectNoUndefined(value: unknown): void {
  expect(findUndefined(value)).toBeNull();
}

/** Records sorted as the lists promise: descending id. */
export function newestFirst<T extends { id: string }>(records: readonly T[]): T[] {
  return [...records].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

export const idsOf = (records: readonly { id: string }[]): string[] => records.map((r) => r.id);

/** Follows `beforeId` from page to page until a short page; returns every id seen, in order. */
export async function walkPages(fetch: (page: PageRequest) => Promise<{ id: string }[]>, size: number): Promise<string[]> {
  const seen: string[] = [];
  let beforeId: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await fetch(beforeId === undefined ? { limit: size } : { limit: size, beforeId });
    expect(page.length).toBeLessThanOrEqual(size);
    seen.push(...page.map((r) => r.id));
    if (page.length < size) return seen;
    beforeId = page[page.length - 1]!.id;
  }
  throw new Error("paging did not end");
}

/** Runs `work` with the TLP audit guards lifted, and puts them back whatever happens. */
export async function withoutAuditGuards<T>(raw: RawAccess, work: () => Promise<T>): Promise<T> {
  await raw.disableAuditGuards();
  try {
    return await work();
  } finally {
    await raw.enableAuditGuards();
  }
}

/** Runs `sql` on the raw database, expecting an append-only guard to refuse it (saying so). */
export async function expectAppendOnlyRefusal(raw: RawAccess, sql: string, params: unknown[]): Promise<void> {
  const error = await raw.exec(sql, params).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `expected the database to refuse: ${sql}`).toBeInstanceOf(Error);
  expect((error as Error).message).toMatch(/append-only/i);
}
