/**
 * Where several units of work run one after another inside one transaction (SQLite's group
 * commit, adapters/sqlite/group-commit.ts), what each hands on to the next: state as the
 * transaction holds it after the last unit that succeeded, and the writes that state still owes
 * the database, made once before the COMMIT.
 *
 * Why: every create holds its organization's counters (the case number, the heads of both audit
 * chains). Alone, a unit reads that row and writes it back; in a group of 20, the row was read 20
 * times and written 20 times, though only the group's last value reaches the commit.
 *
 * A unit hands on only once it has succeeded (its deferred writes done, `onSuccess` in
 * unit-state.ts), so a unit rolled back to its savepoint leaves the carry as the unit before it
 * left it, which is also what the transaction holds again. A group that ends rolled back drops its
 * carry with it; the next group starts a new one.
 */
import type { Executor } from "../declare/dialect.js";

export class UnitCarry {
  private readonly values = new Map<string, unknown>();
  private readonly owed = new Map<string, (executor: Executor) => Promise<void>>();

  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set(key: string, value: unknown): void {
    this.values.set(key, value);
  }

  /** A write the carried state owes the database, by key: each key's is made once, when the group settles. */
  owe(key: string, write: (executor: Executor) => Promise<void>): void {
    if (!this.owed.has(key)) this.owed.set(key, write);
  }

  /** Makes the owed writes, in the order first owed (each reads the carried state as it is then); the COMMIT follows. */
  async settle(executor: Executor): Promise<void> {
    for (const write of this.owed.values()) await write(executor);
    this.owed.clear();
  }
}
