import type { Socket } from "node:net";
import pRetry from "p-retry";
import type { AuditSource, DeliverableAuditEvent, DeliveryCursorStore } from "./source.js";
import { frameOctetCounted } from "./syslog-format.js";

export interface SyslogSinkOptions<E extends DeliverableAuditEvent> {
  /** Names the sink in the cursor store: a sink that keeps its id resumes where it stopped. */
  sinkId: string;
  organizationId: string;
  /** Opens a connection to the receiver (adapters/outbound/syslog-connection.ts: connectSyslog under the SSRF rule). */
  connect(): Promise<Socket>;
  source: AuditSource<E>;
  cursors: DeliveryCursorStore;
  /**
   * Asked before every write: false holds delivery back (nothing is read or written; asked again
   * after pollMs). A host runs a sink only while it holds the sink's lease (sink-host.ts).
   */
  mayWrite?: () => boolean;
  /** One event as one syslog message, unframed (auditSyslogFormatter). */
  format(event: E): string;
  /** Events `notify` holds before it drops (and counts) new ones. Default 1 000. */
  queueCapacity?: number;
  /** Events written per write. Default 200. */
  batchSize?: number;
  /** Without a notification, the source is read again after this long (events written by other hosts). Default 5 s. */
  pollMs?: number;
  /** Backoff between failed attempts (connect, read or write): from `minMs`, doubling, at most `maxMs`, randomized. Default 500 ms to 60 s. */
  retry?: { minMs: number; maxMs: number };
  /** A write the receiver does not take within this (it stopped reading) fails, and the connection is dropped. Default 30 s. */
  writeTimeoutMs?: number;
  /** Told every failed attempt; the sink retries regardless. */
  onError?(error: unknown): void;
  /** Told how many events each write handed to the receiver, once its cursor is saved. */
  onDelivered?(count: number): void;
}

export interface SyslogSinkStats {
  /** The seq of the last event handed to the receiver (what the cursor store holds). */
  cursor: number;
  delivered: number;
  /** Events `notify` refused because the queue was full: not lost, read from the source later. */
  dropped: number;
  queued: number;
  connected: boolean;
  /** Connections opened since start (1 + reconnects). */
  connections: number;
  failures: number;
}

export interface SyslogSink<E extends DeliverableAuditEvent> {
  /**
   * Hands a freshly written event to the sink; never blocks and never throws. A full queue drops
   * it (counted): the queue only spares a read of the source, which stays the truth.
   */
  notify(event: E): void;
  stats(): SyslogSinkStats;
  /** Finishes the write in progress, closes the connection; nothing is written afterwards. */
  stop(): Promise<void>;
}

export const syslogSinkDefaults = { queueCapacity: 1_000, batchSize: 200, pollMs: 5_000, retry: { minMs: 500, maxMs: 60_000 }, writeTimeoutMs: 30_000 } as const;

/**
 * Delivers one organization's audit events to a syslog receiver, in seq order, each once.
 *
 * The source is the truth and the cursor (the seq last handed to the receiver, persisted) is the
 * only state that matters: on start, after a drop, after a reconnect, delivery continues with the
 * events after the cursor. The cursor moves only once a write was accepted by a connection that
 * was still open, so nothing is skipped and nothing is sent twice by a running sink. Syslog over
 * TCP has no acknowledgement (RFC 6587): what the receiver's kernel had taken when the receiver
 * died uncleanly is lost to it; a receiver that closes its connections loses nothing.
 */
export function startSyslogSink<E extends DeliverableAuditEvent>(options: SyslogSinkOptions<E>): SyslogSink<E> {
  const capacity = options.queueCapacity ?? syslogSinkDefaults.queueCapacity;
  const batchSize = options.batchSize ?? syslogSinkDefaults.batchSize;
  const pollMs = options.pollMs ?? syslogSinkDefaults.pollMs;
  const retry = options.retry ?? syslogSinkDefaults.retry;
  const writeTimeoutMs = options.writeTimeoutMs ?? syslogSinkDefaults.writeTimeoutMs;
  const stopping = new AbortController();
  const queue: E[] = [];
  const stats: SyslogSinkStats = { cursor: 0, delivered: 0, dropped: 0, queued: 0, connected: false, connections: 0, failures: 0 };
  let socket: Socket | null = null;
  let wake: (() => void) | null = null;

  const report = (error: unknown) => {
    stats.failures++;
    try {
      options.onError?.(error);
    } catch {
      // A failing reporter must not stop delivery.
    }
  };

  /** Waits `ms`, or until notified or stopped. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stopping.signal.removeEventListener("abort", done);
        wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopping.signal.addEventListener("abort", done);
      wake = done;
    });

  /** The queued events that continue right after the cursor, or null when the source must be read. */
  const fromQueue = (cursor: number): E[] | null => {
    while (queue.length > 0 && queue[0]!.seq <= cursor) queue.shift();
    if (queue[0]?.seq !== cursor + 1) return null;
    let end = 1;
    while (end < queue.length && end < batchSize && queue[end]!.seq === queue[end - 1]!.seq + 1) end++;
    return queue.splice(0, end);
  };

  const open = async (): Promise<Socket> => {
    if (socket?.writable) return socket;
    socket?.destroy();
    socket = null;
    const opened = await options.connect();
    stats.connections++;
    const forget = () => {
      if (socket === opened) {
        socket = null;
        stats.connected = false;
      }
    };
    // The receiver sends nothing; its close (or reset) ends the connection for us too.
    opened.on("error", forget).on("close", forget).on("end", forget).resume();
    socket = opened;
    stats.connected = true;
    return opened;
  };

  const write = (target: Socket, frames: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => target.destroy(new Error(`the receiver took nothing for ${writeTimeoutMs} ms`)), writeTimeoutMs);
      target.write(frames, (error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      });
    });

  /** One batch: read, connect if needed, write, move the cursor. Answers whether there was anything. */
  const step = async (): Promise<boolean> => {
    if (options.mayWrite && !options.mayWrite()) return false;
    const batch = fromQueue(stats.cursor) ?? (await options.source.after(options.organizationId, stats.cursor, batchSize));
    stats.queued = queue.length;
    if (batch.length === 0) return false;
    const target = await open();
    // A receiver that closed meanwhile: its FIN was handled before this turn, so nothing is written into a dead connection.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!target.writable) throw new Error("the receiver closed the connection");
    // The read and the connect took time: the right to write is asked again right before writing.
    if (options.mayWrite && !options.mayWrite()) return false;
    try {
      await write(target, Buffer.concat(batch.map((event) => frameOctetCounted(options.format(event)))));
    } catch (error) {
      target.destroy();
      throw error;
    }
    stats.cursor = batch.at(-1)!.seq;
    stats.delivered += batch.length;
    await options.cursors.set(options.sinkId, options.organizationId, stats.cursor);
    try {
      options.onDelivered?.(batch.length);
    } catch {
      // A failing counter must not repeat a batch.
    }
    return true;
  };

  const running = (async () => {
    try {
      stats.cursor = await pRetry(() => options.cursors.get(options.sinkId, options.organizationId), retryOptions());
      while (!stopping.signal.aborted) {
        const busy = await pRetry(step, retryOptions());
        if (!busy) await pause(pollMs);
      }
    } catch (error) {
      if (!stopping.signal.aborted) report(error);
    }
  })();

  function retryOptions() {
    return {
      retries: Number.POSITIVE_INFINITY,
      minTimeout: retry.minMs,
      maxTimeout: retry.maxMs,
      factor: 2,
      randomize: true,
      signal: stopping.signal,
      onFailedAttempt: ({ error }: { error: unknown }) => report(error),
      // Every failure is retried (a receiver or a database away comes back; stop() ends it) but
      // one that says delivery must stop (stopsDelivery: another host runs the sink now).
      shouldRetry: ({ error }: { error: unknown }) => !stopping.signal.aborted && (error as { stopsDelivery?: unknown } | null)?.stopsDelivery !== true,
    };
  }

  return {
    notify(event) {
      if (event.organizationId !== options.organizationId || stopping.signal.aborted) return;
      if (queue.length >= capacity) stats.dropped++;
      else queue.push(event);
      stats.queued = queue.length;
      wake?.();
    },
    stats: () => ({ ...stats }),
    async stop() {
      stopping.abort();
      wake?.();
      await running;
      socket?.end();
      socket = null;
      stats.connected = false;
    },
  };
}
