import { Readable } from "node:stream";

/**
 * A Node Readable over an async iterator of chunks, pulled one `next()` at a time and only
 * while the consumer wants more (`push` answered true): the backpressure of the socket reaches
 * the source. Destroying it (the client went away) aborts `controller` and returns the iterator.
 */
export class IteratorReadable extends Readable {
  #first: IteratorResult<string> | undefined;
  readonly #iterator: AsyncIterator<string>;
  readonly #controller: AbortController;
  readonly #onError: (error: unknown) => void;
  #pulling = false;

  constructor(first: IteratorResult<string>, iterator: AsyncIterator<string>, controller: AbortController, onError: (error: unknown) => void) {
    // A small high-water mark: a few chunks wait in memory, never a page more than that.
    super({ highWaterMark: 64 * 1024 });
    this.#first = first;
    this.#iterator = iterator;
    this.#controller = controller;
    this.#onError = onError;
  }

  override _read(): void {
    if (this.#pulling) return;
    this.#pulling = true;
    void this.#pull();
  }

  async #pull(): Promise<void> {
    try {
      for (;;) {
        const result = this.#first ?? (await this.#iterator.next());
        this.#first = undefined;
        if (this.destroyed) return;
        if (result.done) {
          this.push(null);
          return;
        }
        if (!this.push(result.value)) return;
      }
    } catch (error) {
      if (this.destroyed) return;
      this.#onError(error);
      this.destroy(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.#pulling = false;
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#controller.abort();
    // Not awaited: a generator finishing an await (a database read) returns once that settles.
    Promise.resolve(this.#iterator.return?.()).catch(() => {});
    callback(error);
  }
}
