/**
 * A promise-queue mutex: runs async tasks one at a time, in the order they asked, without
 * blocking the event loop while they wait.
 *
 * A better-sqlite3 connection runs statements synchronously, but a read unit spans `await`s; if
 * two read units shared a reader connection at once, they would share its transaction and its
 * snapshot. Each reader (readers.ts) therefore serves one read unit at a time through this queue,
 * from its BEGIN to its COMMIT. (The writer's units go through group-commit.ts.)
 *
 * Ownership passes straight from a finishing task to the next waiter, so no task can slip in
 * between. A task that never settles holds the queue for ever: units of work must not wait on
 * anything that waits on the storage (in particular, never call `storage.transaction` or
 * `storage.read` from inside a unit of work; use the `tx` it was given).
 */
export class SerialQueue {
  private busy = false;
  private readonly waiters: (() => void)[] = [];
  private head = 0;

  /** Runs `task` once every earlier task has finished; settles as `task` does. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.busy) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    } else {
      this.busy = true;
    }
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /** Tasks waiting for their turn (not counting the one running). */
  get pending(): number {
    return this.waiters.length - this.head;
  }

  private release(): void {
    if (this.head < this.waiters.length) {
      const next = this.waiters[this.head]!;
      this.head += 1;
      // Compact now and then instead of shifting on every release.
      if (this.head > 1024 && this.head * 2 > this.waiters.length) {
        this.waiters.splice(0, this.head);
        this.head = 0;
      }
      next(); // ownership passes on: `busy` stays true
    } else {
      this.waiters.length = 0;
      this.head = 0;
      this.busy = false;
    }
  }
}
