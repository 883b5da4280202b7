import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followSeq, formatSseEvent, sseBody } from "../../server/streaming/sse-body.js";
import type { SseOptions } from "../../server/streaming/sse-body.js";
import { createSyntheticAuditLog } from "../audit-delivery/synthetic-audit.js";
import { connect } from "../helpers/sse-client.js";
import type { Received } from "../helpers/sse-client.js";
import { until } from "../helpers/syslog-receiver.js";
import { streamingHost } from "./streamed-answer-host.js";

type Host = Awaited<ReturnType<typeof streamingHost>>;
let host: Host;
beforeAll(async () => {
  host = await streamingHost();
});
afterAll(async () => {
  await host.listener.close(1_000);
});

function auditStream(log: ReturnType<typeof createSyntheticAuditLog>, options: Partial<SseOptions> = {}) {
  return () =>
    sseBody({
      follow: (after, signal) =>
        (async function* () {
          for await (const event of followSeq((seq, limit) => log.source.after("org_a", seq, limit), after ?? 0, signal, { batchSize: 4, pollMs: 20 })) {
            yield { id: event.seq, event: "audit", data: event };
          }
        })(),
      heartbeatMs: 5_000,
      retryMs: 1_500,
      ...options,
    });
}

const ids = (received: Received) => received.events.map((e) => Number(e.id));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("Server-Sent Events", () => {
  it("sends retry first, then each event with its seq as id, then new events as they are written; never gzipped", async () => {
    const log = createSyntheticAuditLog();
    for (let i = 0; i < 5; i++) log.append();
    host.serve(auditStream(log));
    const stream = await connect(host.url, { "accept-encoding": "gzip" });
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(stream.headers["content-encoding"]).toBeUndefined();
    expect(stream.headers["cache-control"]).toBe("no-store");
    await until(() => stream.events.length >= 5, "the first 5 events");
    expect(stream.raw.startsWith("retry: 1500\n\n")).toBe(true);
    expect(ids(stream)).toEqual(range(1, 5));
    expect(stream.events[0]!.event).toBe("audit");
    expect(JSON.parse(stream.events[0]!.data)).toMatchObject({ seq: 1, organizationId: "org_a" });
    for (let i = 0; i < 6; i++) log.append();
    await until(() => stream.events.length >= 11, "6 live events");
    expect(ids(stream)).toEqual(range(1, 11));
    stream.close();
  });

  it("resumes after a reconnect with Last-Event-ID: no loss, no duplicate", async () => {
    const log = createSyntheticAuditLog();
    for (let i = 0; i < 7; i++) log.append();
    host.serve(auditStream(log));
    const first = await connect(host.url);
    await until(() => first.events.length >= 7, "7 events");
    first.close();
    for (let i = 0; i < 5; i++) log.append();
    const lastSeen = first.events.at(-1)!.id;
    // A reconnecting EventSource sends the first URL again: the header wins over its query.
    const second = await connect(`${host.url}?lastEventId=2`, { "last-event-id": lastSeen });
    for (let i = 0; i < 3; i++) log.append();
    await until(() => second.events.length >= 8, "the 8 events after the reconnect");
    expect([...ids(first), ...ids(second)]).toEqual(range(1, 15));
    second.close();
  });

  it("starts after ?lastEventId= on a first connection", async () => {
    const log = createSyntheticAuditLog();
    for (let i = 0; i < 6; i++) log.append();
    host.serve(auditStream(log));
    const stream = await connect(`${host.url}?lastEventId=4`);
    await until(() => stream.events.length >= 2, "2 events");
    expect(ids(stream)).toEqual([5, 6]);
    stream.close();
  });

  it("answers 400 problem details for a Last-Event-ID that is not a sequence number", async () => {
    host.serve(auditStream(createSyntheticAuditLog()));
    for (const [headers, query, path] of [[{ "last-event-id": "abc" }, "", "Last-Event-ID"], [{ "last-event-id": "-1" }, "", "Last-Event-ID"], [{}, "?lastEventId=1e3", "lastEventId"]] as const) {
      const answer = await connect(host.url + query, headers);
      await until(() => answer.ended, "the problem's end");
      expect(answer.status).toBe(400);
      expect(answer.headers["content-type"]).toBe("application/problem+json");
      expect(JSON.parse(answer.raw)).toMatchObject({ code: "validation_failed", errors: [{ path }] });
    }
  });

  it("sends a heartbeat comment while there is nothing to send", async () => {
    host.serve(auditStream(createSyntheticAuditLog(), { heartbeatMs: 40 }));
    const stream = await connect(host.url);
    await until(() => stream.comments.length >= 3, "3 heartbeats");
    expect(stream.comments.every((c) => c === "heartbeat")).toBe(true);
    expect(stream.events).toEqual([]);
    stream.close();
  });

  it("reads events only as fast as the client reads them (backpressure)", async () => {
    let produced = 0;
    host.serve(() =>
      sseBody({
        follow: (after, signal) =>
          (async function* () {
            for (let id = (after ?? 0) + 1; !signal.aborted; id++) {
              produced++;
              yield { id, data: { note: "x".repeat(1_000) } };
            }
          })(),
      }),
    );
    const request = http.get(host.url);
    const response = await new Promise<http.IncomingMessage>((resolve) => request.on("response", resolve));
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const whilePaused = produced;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(produced).toBe(whilePaused);
    // Socket buffers and one high-water mark of ~1 KB events: thousands, never an unbounded pile.
    expect(whilePaused).toBeLessThan(20_000);
    request.destroy();
  });

  it("stops reading the source when the client goes away", async () => {
    const log = createSyntheticAuditLog();
    host.serve(auditStream(log));
    const stream = await connect(host.url);
    await until(() => log.reads >= 2, "the follow polling");
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = log.reads;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(log.reads).toBe(after);
  });

  it("works in-process too (app.fetch, a web stream), and cancelling the body stops the source", async () => {
    const log = createSyntheticAuditLog();
    for (let i = 0; i < 3; i++) log.append();
    host.serve(auditStream(log));
    const response = await host.app.fetch(new Request("http://local/stream", { headers: { "last-event-id": "1" } }));
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes("id: 3\n")) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.match(/^id: \d+$/gm)).toEqual(["id: 2", "id: 3"]);
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const reads = log.reads;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(log.reads).toBe(reads);
  });

  it("writes an event on one data line, and refuses an event name that would break the framing", () => {
    expect(formatSseEvent({ id: 3, event: "audit", data: { note: "two\nlines\r\n" } })).toBe('id: 3\nevent: audit\ndata: {"note":"two\\nlines\\r\\n"}\n\n');
    expect(formatSseEvent({ id: 4, data: 1 })).toBe("id: 4\ndata: 1\n\n");
    expect(() => formatSseEvent({ id: 5, event: "a\nb", data: 1 })).toThrow(/event name/);
  });
});

describe("Server-Sent Events and shutdown", () => {
  it("end cleanly when the host shuts down, so the drain does not wait for its deadline", async () => {
    const own = await streamingHost();
    own.serve(auditStream(createSyntheticAuditLog()));
    const streams = await Promise.all([connect(own.url), connect(own.url)]);
    await until(() => streams.every((s) => s.raw.startsWith("retry:")), "both streams open");
    const started = performance.now();
    own.shutdown.abort();
    const { forced } = await own.listener.close(5_000);
    expect(forced).toBe(0);
    expect(performance.now() - started).toBeLessThan(2_000);
    await until(() => streams.every((s) => s.ended), "both streams ended");
  });
});
