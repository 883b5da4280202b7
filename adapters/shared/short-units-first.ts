/**
 * Short units of work before long ones, on a storage whose long units share the event loop with
 * requests (PostgreSQL: a selectAll bulk's statements are sent, and their rows parsed, on the
 * thread that answers every request).
 *
 * A long unit keeps that thread busy nearly all the time: its pages' rows to parse, its records'
 * audit and event items to build, its log rows to hash and write. A request arriving meanwhile
 * needs a few turns of the thread (its key's access version, its read, its answer), and each
 * turn queued behind a piece of the bulk. So a long unit asks `turn()` before each statement and
 * at each breather turn: while short work is in flight (a unit that is not long, an
 * access-version read), it waits until none is, then one more turn of the event loop (so what a
 * finished unit's caller does next, such as writing its answer, runs first).
 *
 * Short work counts only for its first `longestWaitMs`: requests arriving back to back slow a
 * long unit down, never stop it, and a short unit that waits for the long one (a row the bulk
 * holds until it commits) does not make the bulk wait for it in turn.
 */

/** How long (ms) short work holds long units back. */
export const defaultLongestWaitMs = 20;

interface Running {
  since: number;
}

export class ShortUnitsFirst {
  private readonly running = new Set<Running>();
  private readonly waiting = new Set<() => void>();
  private releasing = false;

  constructor(private readonly longestWaitMs = defaultLongestWaitMs) {}

  /** Runs `work` as short work: long units wait while it is in flight (for its first `longestWaitMs`). */
  async short<T>(work: () => Promise<T>): Promise<T> {
    const entry: Running = { since: performance.now() };
    this.running.add(entry);
    try {
      return await work();
    } finally {
      this.running.delete(entry);
      this.releaseSoon();
    }
  }

  /**
   * Undefined when no short work holds long units back (nothing to wait for, no promise made);
   * otherwise a promise that settles once none does.
   */
  turn(): Promise<void> | undefined {
    const until = this.heldUntil();
    // Statements already waiting go first: one waiting means a release is due (releaseSoon).
    if (until === undefined && this.waiting.size === 0) return undefined;
    return new Promise<void>((resolve) => {
      const go = (): void => {
        clearTimeout(timer);
        this.waiting.delete(go);
        resolve();
      };
      // A timer counts whole milliseconds of the loop's cached clock: one more, so it never fires before `until`.
      const timer = setTimeout(go, until === undefined ? 0 : Math.ceil(until - performance.now()) + 1);
      this.waiting.add(go);
    });
  }

  /** When the youngest short work in flight stops holding long units back; undefined if none does now. */
  private heldUntil(): number | undefined {
    const now = performance.now();
    let until: number | undefined;
    for (const { since } of this.running) {
      const end = since + this.longestWaitMs;
      if (end > now && (until === undefined || end > until)) until = end;
    }
    return until;
  }

  /** After the turn in which short work ended: lets the waiting statements go, unless other short work still holds them. */
  private releaseSoon(): void {
    if (this.waiting.size === 0 || this.releasing) return;
    this.releasing = true;
    setImmediate(() => {
      this.releasing = false;
      if (this.heldUntil() !== undefined) return;
      for (const go of [...this.waiting]) go();
    });
  }
}
