/**
 * A promise-queue mutex: runs async tasks one at a time, in the order they asked, without
 * blocking the event loop while they wait.
 *
 * better-sqlite3 has one connection and runs statements synchronously, but a unit of work spans
 * `await`s; if two units shared the connection at once, one's statements would land inside the
 * other's transaction. Every unit of work (and every read) therefore holds this queue from its
 * first statement to its COMMIT or ROLLBACK.
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
