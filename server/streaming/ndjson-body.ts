import type { StreamBody } from "./stream-body.js";

/**
 * Newline-delimited JSON (one record per line, `application/x-ndjson`) from an async sequence
 * of pages: one page is read, written and let go before the next is read, so memory holds one
 * page whatever the total. Empty pages write nothing; the first chunk is the first record, so a
 * source that fails before any record answers problem details.
 */
export function ndjsonBody<T>(pages: (signal: AbortSignal) => AsyncIterable<readonly T[]>): StreamBody {
  return {
    contentType: "application/x-ndjson",
    compressible: true,
    async *open({ signal }) {
      for await (const page of pages(signal)) {
        if (page.length === 0) continue;
        let chunk = "";
        for (const record of page) chunk += `${JSON.stringify(record)}\n`;
        yield chunk;
      }
    },
  };
}

/** A cursor-paged list (`{ data, nextCursor }`) read page after page until `nextCursor` is null. */
export async function* cursorPages<T>(
  readPage: (cursor: string | null) => Promise<{ data: readonly T[]; nextCursor: string | null }>,
  signal?: AbortSignal,
): AsyncGenerator<readonly T[]> {
  let cursor: string | null = null;
  do {
    signal?.throwIfAborted();
    const page: { data: readonly T[]; nextCursor: string | null } = await readPage(cursor);
    yield page.data;
    cursor = page.nextCursor;
  } while (cursor !== null);
}
