import { CaseKitError } from "../../core/index.js";
import type { StreamBody } from "./stream-body.js";

/** One Server-Sent Event: `id` is the record's sequence number, so a reconnect resumes after it. */
export interface SseEvent {
  id: number;
  /** The `event:` field (the listener's name in EventSource); `message` when absent. */
  event?: string;
  /** Written as JSON on one `data:` line. */
  data: unknown;
}

export interface SseOptions {
  /**
   * The events after `after` (null: the client named none), then each new one as it comes, until
   * `signal` aborts. Ids ascend. followSeq() builds this from an ascending read.
   */
  follow(after: number | null, signal: AbortSignal): AsyncIterable<SseEvent>;
  /** A comment line after this long without an event, so proxies and clients see a live connection. Default 15 s. */
  heartbeatMs?: number;
  /** The reconnection delay the client is told (`retry:`). Default 3 s. */
  retryMs?: number;
}

export const sseDefaults = { heartbeatMs: 15_000, retryMs: 3_000 } as const;

/**
 * Server-Sent Events (WHATWG HTML §9.2), resumable: the client's `Last-Event-ID` header (what
 * EventSource sends on reconnect) or, for the first connection, `?lastEventId=`. The header wins,
 * since a reconnecting EventSource sends the original URL again. The first chunk (the `retry:`
 * field) goes out at once, so the client knows it is connected; a bad Last-Event-ID is a 400
 * before it. Ends cleanly when the host shuts down (the client reconnects elsewhere and resumes).
 */
export function sseBody(options: SseOptions): StreamBody {
  const heartbeatMs = options.heartbeatMs ?? sseDefaults.heartbeatMs;
  const retryMs = options.retryMs ?? sseDefaults.retryMs;
  return {
    contentType: "text/event-stream; charset=utf-8",
    compressible: false,
    async *open({ headers, url, signal, shutdown }) {
      const after = lastEventIdOf(headers, url);
      const stop = AbortSignal.any([signal, shutdown]);
      yield `retry: ${retryMs}\n\n`;
      const events = options.follow(after, stop)[Symbol.asyncIterator]();
      const stopped = new Promise<"stop">((resolve) => {
        if (stop.aborted) resolve("stop");
        else stop.addEventListener("abort", () => resolve("stop"), { once: true });
      });
      try {
        // A read failing after the stream stopped must not surface as an unhandled rejection.
        const next = () => {
          const promise = events.next();
          promise.catch(() => {});
          return promise;
        };
        let pending = next();
        for (;;) {
          let timer: NodeJS.Timeout | undefined;
          const beat = new Promise<"beat">((resolve) => (timer = setTimeout(() => resolve("beat"), heartbeatMs)));
          let outcome: Awaited<typeof pending> | "beat" | "stop";
          try {
            outcome = await Promise.race([pending, beat, stopped]);
          } finally {
            // Also when the source failed: a heartbeat timer must not outlive the stream.
            clearTimeout(timer);
          }
          if (outcome === "stop") return;
          if (outcome === "beat") {
            yield ": heartbeat\n\n";
            continue;
          }
          if (outcome.done) return;
          yield formatSseEvent(outcome.value);
          pending = next();
        }
      } finally {
        // The follow ends on `stop`; returning it also covers a body closed for another reason.
        Promise.resolve(events.return?.()).catch(() => {});
      }
    },
  };
}

/** One event on the wire. JSON never holds a raw line break, so `data` is always one line. */
export function formatSseEvent(event: SseEvent): string {
  if (event.event !== undefined && !/^[\w.:-]+$/.test(event.event)) throw new Error(`not an SSE event name: ${JSON.stringify(event.event)}`);
  return `id: ${event.id}\n${event.event ? `event: ${event.event}\n` : ""}data: ${JSON.stringify(event.data)}\n\n`;
}

/** The sequence number to resume after: the Last-Event-ID header, else `?lastEventId=`, else null. */
export function lastEventIdOf(headers: Headers, url: URL): number | null {
  const header = headers.get("last-event-id");
  const [text, path] = header !== null ? [header, "Last-Event-ID"] : [url.searchParams.get("lastEventId"), "lastEventId"];
  if (text === null || text.trim() === "") return null;
  if (!/^\d{1,15}$/.test(text.trim())) {
    throw new CaseKitError("validation_failed", "Last-Event-ID must be the id of an event this stream sent (a non-negative integer)", [{ path, message: "Expected a non-negative integer" }]);
  }
  return Number(text.trim());
}

export interface FollowOptions {
  /** Rows asked per read. Default 500. */
  batchSize?: number;
  /** After a read that came back short, wait this long before reading again. Default 1 s. */
  pollMs?: number;
}

/**
 * Follows an ascending read (`read(after, limit)`, e.g. AuditSource.after bound to one
 * organization): every row after `after`, then new rows as they appear, polling when caught up,
 * until `signal` aborts. Resuming from the last id seen loses nothing and repeats nothing, given
 * the source's invariant that rows become visible in seq order.
 */
export async function* followSeq<T extends { seq: number }>(
  read: (after: number, limit: number) => Promise<readonly T[]>,
  after: number,
  signal: AbortSignal,
  options: FollowOptions = {},
): AsyncGenerator<T> {
  const batchSize = options.batchSize ?? 500;
  const pollMs = options.pollMs ?? 1_000;
  let cursor = after;
  while (!signal.aborted) {
    const rows = await read(cursor, batchSize);
    for (const row of rows) {
      if (signal.aborted) return;
      yield row;
      cursor = row.seq;
    }
    if (rows.length < batchSize) await pause(pollMs, signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
