import { resolve } from "node:path";
import type { Executor } from "../declare/dialect.js";
import { holding } from "./file-writers.js";
import type { SqliteDatabase } from "./statements.js";
import { Statements } from "./statements.js";
import { UnitCarry } from "../shared/unit-carry.js";
import { sqliteExecutor } from "./dialect.js";

/** How many units one group holds at most, and how long (ms, from its BEGIN) it keeps taking more. */
export interface GroupLimits {
  maxUnits: number;
  maxMs: number;
}

/**
 * 64 units or 10 ms: past a few dozen units the commit's cost per unit is already a few
 * microseconds, while every unit of a group waits for the group's last one (a long unit gives the
 * event loop its turns meanwhile: yielding-unit.ts). So a queue that never empties still
 * commits at least every 10 ms plus one unit. (A task run alone, a checkpoint, needs no cap: a
 * group ends at the first one queued, so it waits only for the units queued before it.)
 */
export const defaultGroupLimits: GroupLimits = { maxUnits: 64, maxMs: 10 };

const sql = {
  begin: "BEGIN IMMEDIATE",
  commit: "COMMIT",
  rollback: "ROLLBACK",
  savepoint: "SAVEPOINT casekit_unit",
  rollbackTo: "ROLLBACK TO casekit_unit",
  release: "RELEASE casekit_unit",
} as const;

interface Queued {
  /** Runs outside any group (between two), instead of as a unit inside one. */
  alone: boolean;
  /** A unit gets its group's carry (unit-carry.ts); an `alone` task none. */
  run: (carry?: UnitCarry) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** A unit that has run in the open group and waits for the group's end to settle. */
type Ran = { queued: Queued; ok: true; value: unknown } | { queued: Queued; ok: false; error: unknown };

/**
 * Group commit for the one writer connection: units of work that wait at the same time share one
 * transaction, and one BEGIN … COMMIT (a large part of a small unit's cost) pays for all of them.
 *
 * - A group starts one event-loop turn after the first unit asks (setImmediate), so the units of
 *   every request that arrived in the same turn join it; it also takes the units that ask while
 *   it runs. It commits as soon as no unit waits, or once it holds `maxUnits` units
 *   or has been open `maxMs` (see defaultGroupLimits): a unit never waits on an endless stream.
 * - Units run one at a time, in the order they asked, each inside SAVEPOINT … RELEASE (the first
 *   needs none: the transaction is its savepoint). A unit that throws is rolled back to its
 *   savepoint: its writes are undone, the units before it keep theirs, the units after it never
 *   saw them. (When the first throws, the group ends there, rolled back; the queue goes on in the
 *   next group.)
 * - No unit settles before the group's COMMIT has returned: an answer given on a unit's result
 *   is durable as it was with one transaction per unit (synchronous=NORMAL in WAL). A failed unit
 *   rejects with its own error, after the group ends too.
 * - If the COMMIT fails, or SQLite rolls back the whole transaction under a unit (SQLITE_FULL,
 *   SQLITE_IOERR… leave `inTransaction` false), nothing of the group is kept: every unit of it
 *   rejects, none having been answered. Statements are refused once the transaction is gone
 *   (`insideGroup`), so a unit that swallowed such an error cannot write outside any transaction.
 * - `alone` tasks (a checkpoint holding the writer, migrations, close, reads of an in-memory
 *   database) keep their place in the same queue and run between two groups, never inside one:
 *   they see only committed data and no unit's statements run meanwhile.
 *
 * BEGIN IMMEDIATE takes the write lock for the group, so other processes wait (busy_timeout)
 * instead of failing halfway; readers on other connections see each group whole, once committed.
 */
export class GroupCommit {
  private readonly queue: Queued[] = [];
  private head = 0;
  private draining = false;
  private readonly statements: Statements;
  /** What a group's carry owes the database is written through this, before its COMMIT. */
  private readonly settling: Executor;
  /** The database file, held by one writer of this process at a time (file-writers.ts); none in memory. */
  private readonly file: string | undefined;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly limits: GroupLimits = defaultGroupLimits,
  ) {
    this.statements = new Statements(db);
    this.settling = sqliteExecutor(this.statements);
    this.file = fileOf(db);
  }

  /**
   * Runs `work` as one unit of the next group, with the group's carry (what the group's units
   * hand on to each other, unit-carry.ts); settles once that group has ended.
   */
  unit<T>(work: (carry: UnitCarry) => Promise<T>): Promise<T> {
    // A unit runs only inside a group (runUnit), which always hands it the group's carry.
    return this.enqueue(false, (carry) => work(carry!));
  }

  /** Runs `task` between two groups, after everything queued before it. */
  alone<T>(task: () => Promise<T>): Promise<T> {
    return this.enqueue(true, task);
  }

  private enqueue<T>(alone: boolean, run: (carry?: UnitCarry) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ alone, run, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private peek(): Queued | undefined {
    return this.queue[this.head];
  }

  private shift(): Queued {
    const next = this.queue[this.head]!;
    this.head += 1;
    // Compact now and then instead of shifting on every unit.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return next;
  }

  private async drain(): Promise<void> {
    for (let next = this.peek(); next !== undefined; next = this.peek()) {
      if (next.alone) {
        this.shift();
        try {
          next.resolve(await next.run());
        } catch (error) {
          next.reject(error);
        }
      } else {
        await this.group();
      }
      // Between two groups, pending I/O gets a turn (reads on reader connections, new requests):
      // a long queue is worked through group by group, not in one stretch of the event loop.
      if (this.peek() !== undefined) await turn();
    }
    this.queue.length = 0;
    this.head = 0;
    this.draining = false;
  }

  /** Runs one group from BEGIN to COMMIT (or ROLLBACK), then settles its units. */
  private group(): Promise<void> {
    // Another storage of this process writing the same file goes first (file-writers.ts).
    return holding(this.file, () => this.groupHeld());
  }

  private async groupHeld(): Promise<void> {
    const { db, statements, limits } = this;
    try {
      statements.get(sql.begin).run();
    } catch (error) {
      // The write lock stayed out of reach (another process, past busy_timeout): this unit fails.
      this.shift().reject(error);
      return;
    }
    const started = performance.now();
    const carry = new UnitCarry();
    const ran: Ran[] = [];
    /** Why the group ends rolled back, once it must. */
    let lost: { error: unknown } | undefined;

    for (let next = this.peek(); next !== undefined && !next.alone; next = this.peek()) {
      if (ran.length >= limits.maxUnits || performance.now() - started >= limits.maxMs) break;
      const outcome = await this.runUnit(this.shift(), ran.length === 0, carry);
      ran.push(outcome.ran);
      if (outcome.lost !== undefined) {
        lost = outcome.lost;
        break;
      }
    }

    // A long group (a bulk) ends with its largest statements (its log rows); its COMMIT, which
    // writes what they left in the page cache, is one more stretch: the event loop gets a turn
    // between the two, so that a request arriving meanwhile waits for one of them, not both.
    if (lost === undefined && performance.now() - started >= limits.maxMs) await turn();
    if (lost === undefined) {
      try {
        // What the units handed on and still owe (their organizations' counters), once for the group.
        await carry.settle(this.settling);
        statements.get(sql.commit).run();
      } catch (error) {
        lost = { error };
      }
    }
    if (lost !== undefined && db.inTransaction) {
      try {
        statements.get(sql.rollback).run();
      } catch {
        // Nothing better to do: every unit of the group rejects with the error that ended it.
      }
    }
    for (const outcome of ran) {
      if (!outcome.ok) outcome.queued.reject(outcome.error);
      else if (lost !== undefined) outcome.queued.reject(lost.error);
      else outcome.queued.resolve(outcome.value);
    }
  }

  /**
   * Runs one unit inside its savepoint: released when the unit succeeds, rolled back to (then
   * released) when it throws. The group's first unit needs none: the transaction holds nothing
   * else yet, so when it throws, the group ends there and rolls back. `lost` says the group must
   * end rolled back, and why.
   */
  private async runUnit(queued: Queued, first: boolean, carry: UnitCarry): Promise<{ ran: Ran; lost?: { error: unknown } }> {
    const { db, statements } = this;
    let ran: Ran;
    try {
      if (!first) statements.get(sql.savepoint).run();
      ran = { queued, ok: true, value: await queued.run(carry) };
    } catch (error) {
      ran = { queued, ok: false, error };
    }
    // SQLite rolled the whole transaction back under the unit (SQLITE_FULL, SQLITE_IOERR…).
    if (!db.inTransaction) return { ran, lost: { error: ran.ok ? rolledBackUnder() : ran.error } };
    if (first) return ran.ok ? { ran } : { ran, lost: { error: ran.error } };
    try {
      if (!ran.ok) statements.get(sql.rollbackTo).run();
      statements.get(sql.release).run();
      return { ran };
    } catch (error) {
      // The savepoint could not be undone or released: the group ends, rolled back whole.
      return { ran: ran.ok ? { queued, ok: false, error } : ran, lost: { error } };
    }
  }
}

/**
 * One unit in a transaction of its own on `db`, to run as an `alone` task (a long unit when its
 * worker cannot run it): BEGIN IMMEDIATE, the work, COMMIT; ROLLBACK when the work or the COMMIT
 * fails, and the error goes on.
 */
export function soleTransaction<T>(db: SqliteDatabase, work: () => Promise<T>): Promise<T> {
  return holding(fileOf(db), async () => {
    const statements = new Statements(db);
    statements.get(sql.begin).run();
    try {
      const result = await work();
      statements.get(sql.commit).run();
      return result;
    } catch (error) {
      try {
        if (db.inTransaction) statements.get(sql.rollback).run();
      } catch {
        // The error that ended the unit is the one to report.
      }
      throw error;
    }
  });
}

/** The file a connection writes, as file-writers.ts names it; undefined in memory. */
export function fileOf(db: SqliteDatabase): string | undefined {
  return db.memory || db.name === "" ? undefined : resolve(db.name);
}

const turn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

const rolledBackUnder = (): Error =>
  new Error("casekit: SQLite rolled the transaction back during this unit of work, which went on; nothing of the group was kept");

/**
 * `executor` refusing every statement once the connection has left its transaction: after SQLite
 * rolled a group back under a unit, the unit's next statement would otherwise run on its own, in
 * autocommit, and be kept whatever happens to the group.
 */
export function insideGroup(db: SqliteDatabase, executor: Executor): Executor {
  const check = (): void => {
    if (!db.inTransaction) throw new Error("casekit: the transaction of this unit of work was rolled back; nothing more can be written in it");
  };
  return {
    all: async (text, params) => {
      check();
      return executor.all(text, params);
    },
    records: async <T>(text: string, params: readonly unknown[]) => {
      check();
      return executor.records<T>(text, params);
    },
    run: async (text, params) => {
      check();
      return executor.run(text, params);
    },
    guarded: async (text, params) => {
      check();
      return executor.guarded(text, params);
    },
  };
}
