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
 * holds until it commits) does not make the bulk wait for it in turn. A wait that ran out while
 * short work was still in flight (requests that never stop coming) earns long units as long
 * again without waiting: under any load they keep at least half the time they would have had.
 */

/** How long (ms) short work holds long units back. */
export const defaultLongestWaitMs = 20;

interface Running {
  since: number;
}

export class ShortUnitsFirst {
  private readonly running = new Set<Running>();
  /**
   * The last wait asked for: every later turn waits behind it, so a long unit's statements are
   * sent in the order it sent them (a bulk has its next page's read in flight beside a save).
   */
  private last: Promise<void> | undefined;
  /** Ends the wait in progress, if any, once no short work holds long units back. */
  private wake: (() => void) | undefined;
  private releasing = false;
  /** Until when long units go without waiting, after a wait that ran out (performance.now() ms). */
  private freeUntil = 0;

  constructor(private readonly longestWaitMs = defaultLongestWaitMs) {
    if (!Number.isFinite(longestWaitMs) || longestWaitMs < 0) throw new Error(`casekit: invalid giveWayMs ${String(longestWaitMs)}; use a number of milliseconds, 0 or more`);
  }

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
   * Undefined when nothing holds long units back and no earlier turn is still waiting (nothing to
   * wait for, no promise made); otherwise a promise that settles once the turns before it have and
   * no short work holds long units back.
   */
  turn(): Promise<void> | undefined {
    if (this.last === undefined && (performance.now() < this.freeUntil || this.heldUntil() === undefined)) return undefined;
    const waited = this.waitAfter(this.last);
    this.last = waited;
    void waited.then(() => {
      if (this.last === waited) this.last = undefined;
    });
    return waited;
  }

  private async waitAfter(previous: Promise<void> | undefined): Promise<void> {
    if (previous !== undefined) await previous;
    const asked = performance.now();
    const until = asked < this.freeUntil ? undefined : this.heldUntil();
    if (until === undefined) return;
    await new Promise<void>((resolve) => {
      const go = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      // Ran out with short work still in flight: long units have earned as long again.
      const ranOut = (): void => {
        const now = performance.now();
        if (this.running.size > 0) this.freeUntil = Math.max(this.freeUntil, now + (now - asked));
        go();
      };
      // A timer counts whole milliseconds of the loop's cached clock: one more, so it never fires before `until`.
      const timer = setTimeout(ranOut, Math.ceil(until - asked) + 1);
      this.wake = go;
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

  /** After the turn in which short work ended: ends the wait in progress, unless other short work still holds it. */
  private releaseSoon(): void {
    if (this.wake === undefined || this.releasing) return;
    this.releasing = true;
    setImmediate(() => {
      this.releasing = false;
      if (this.heldUntil() === undefined) this.wake?.();
    });
  }
}
