import Database from "better-sqlite3";
import { SerialQueue } from "./queue.js";
import { Statements } from "./statements.js";
import type { SqliteDatabase } from "./statements.js";

/** Reader connections a file database gets unless told otherwise (see ReaderPool). */
export const defaultReaderCount = 2;

/**
 * Read-only connections to the storage's database file, so that reads never wait behind a unit
 * of work on the writer connection (nor behind a backup or a checkpoint): in WAL mode SQLite lets
 * readers run beside the one writer, each reader seeing the last committed state and never
 * another connection's uncommitted work.
 *
 * Each read unit runs on one reader inside its own BEGIN … COMMIT, pinned to one snapshot from its
 * first moment, so every statement of the unit sees the same committed state even across its
 * awaits. Units on one reader are serialised (one transaction per connection); a unit goes to the
 * reader with the least work queued. better-sqlite3 runs every statement on the main thread, so
 * more readers do not make reads faster: they let several read units be open at once across
 * awaits. Two is enough for the core's units, which await only their own statements.
 *
 * Readers are opened on first use: the file must exist and be in WAL mode by then.
 */
export class ReaderPool {
  private readers: Reader[] | undefined;

  constructor(
    private readonly path: string,
    private readonly size: number = defaultReaderCount,
  ) {}

  /** Runs `work` in a read transaction on the least busy reader; settles as `work` does. */
  async run<T>(work: (statements: Statements) => Promise<T>): Promise<T> {
    const readers = (this.readers ??= Array.from({ length: this.size }, () => openReader(this.path)));
    let reader = readers[0]!;
    for (const candidate of readers) if (candidate.load < reader.load) reader = candidate;
    reader.load += 1;
    try {
      return await reader.queue.run(async () => {
        reader.begin.run();
        try {
          // BEGIN is deferred: the snapshot starts at the first read, so read now, not at the
          // unit's first statement, which may come after an await and after another commit.
          reader.pin.get();
          return await work(reader.statements);
        } finally {
          if (reader.db.inTransaction) reader.commit.run();
        }
      });
    } finally {
      reader.load -= 1;
    }
  }

  /**
   * Runs one read-only statement on a reader at once, outside the queue and any transaction of
   * its own: better-sqlite3 runs it synchronously, so it cannot interleave with another unit's
   * statements, and inside a unit's open read transaction a statement that reads nothing
   * stored (the health check's `SELECT 1`) sees nothing it should not. It spares the probe the
   * BEGIN, the snapshot pin and the COMMIT a read unit costs.
   */
  answer<T>(ask: (statements: Statements) => T): T {
    const readers = (this.readers ??= Array.from({ length: this.size }, () => openReader(this.path)));
    return ask(readers[0]!.statements);
  }

  /** Readers open (none before the first read) and those running or holding a queued read unit. */
  use(): { open: number; busy: number } {
    const readers = this.readers ?? [];
    let busy = 0;
    for (const reader of readers) if (reader.load > 0) busy += 1;
    return { open: readers.length, busy };
  }

  /** Lets the units already queued finish, then closes every reader. */
  async close(): Promise<void> {
    const readers = this.readers ?? [];
    this.readers = [];
    await Promise.all(readers.map((reader) => reader.queue.run(async () => reader.db.close())));
  }
}

interface Reader {
  db: SqliteDatabase;
  statements: Statements;
  queue: SerialQueue;
  /** Units running or waiting on this reader. */
  load: number;
  begin: Database.Statement;
  pin: Database.Statement;
  commit: Database.Statement;
}

function openReader(path: string): Reader {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  // Waits only on what the writer cannot avoid (it recovers the WAL index after a crash, or a
  // TRUNCATE checkpoint resets the WAL): milliseconds, never a unit of work.
  db.pragma("busy_timeout = 5000");
  return {
    db,
    statements: new Statements(db),
    queue: new SerialQueue(),
    load: 0,
    begin: db.prepare("BEGIN"),
    pin: db.prepare("PRAGMA schema_version"),
    commit: db.prepare("COMMIT"),
  };
}
