import http from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CaseKitError } from "../../core/index.js";
import { cursorPages, ndjsonBody } from "../../server/streaming/ndjson-body.js";
import { acceptsGzip } from "../../server/streaming/stream-response.js";
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

/** `count` records in pages of `pageSize`, produced only when asked for. */
function records(count: number, pageSize: number, onPage?: (index: number) => void) {
  return async function* (signal: AbortSignal) {
    for (let start = 0, index = 0; start < count; start += pageSize, index++) {
      signal.throwIfAborted();
      onPage?.(index);
      yield Array.from({ length: Math.min(pageSize, count - start) }, (_, i) => ({ seq: start + i + 1, note: "x".repeat(40) }));
    }
  };
}

/** A raw request: status, headers and the body bytes (or the error that cut it). */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer; cut: boolean }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks), cut: false }));
      response.on("error", () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks), cut: true }));
      response.on("aborted", () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks), cut: true }));
    });
    request.on("error", reject);
  });
}

const lines = (body: Buffer) => body.toString("utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { seq: number });

describe("NDJSON export", () => {
  it("streams every record of every page in order, chunked, without a Content-Length", async () => {
    host.serve(() => ndjsonBody(records(2_500, 100)));
    const answer = await get(host.url);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/x-ndjson");
    expect(answer.headers["transfer-encoding"]).toBe("chunked");
    expect(answer.headers["content-length"]).toBeUndefined();
    expect(answer.headers["x-request-id"]).toMatch(/^req_/);
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.headers["vary"]).toBe("accept-encoding");
    expect(answer.headers["content-encoding"]).toBeUndefined();
    expect(lines(answer.body).map((r) => r.seq)).toEqual(Array.from({ length: 2_500 }, (_, i) => i + 1));
  });

  it("gzips when the client accepts it, and the result inflates to the same lines", async () => {
    host.serve(() => ndjsonBody(records(2_500, 100)));
    const plain = await get(host.url);
    const zipped = await get(host.url, { "accept-encoding": "br, gzip;q=0.8" });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.body.length).toBeLessThan(plain.body.length / 5);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    const refused = await get(host.url, { "accept-encoding": "gzip;q=0, *" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
  });

  it("answers problem details when the source fails before the first record", async () => {
    host.serve(() =>
      ndjsonBody(async function* () {
        yield [];
        throw new CaseKitError("validation_failed", "from must be before to");
      }),
    );
    const refused = await get(host.url, { "accept-encoding": "gzip" });
    expect(refused.status).toBe(400);
    expect(refused.headers["content-type"]).toBe("application/problem+json");
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(refused.body.toString())).toMatchObject({ code: "validation_failed", detail: "from must be before to" });

    host.serve(() =>
      ndjsonBody(() => ({
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("SELECT secret FROM somewhere failed")) }),
      })),
    );
    const failed = await get(host.url);
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.body.toString())).toMatchObject({ code: "internal_error" });
    expect(failed.body.toString()).not.toContain("SELECT");
  });

  it("cuts the connection when the source fails after the first record, so the body cannot pass for whole", async () => {
    const before = host.unexpected.length;
    host.serve(() =>
      ndjsonBody(async function* () {
        yield [{ seq: 1 }];
        await new Promise((resolve) => setTimeout(resolve, 200));
        throw new Error("the database went away");
      }),
    );
    for (const headers of [{}, { "accept-encoding": "gzip" }] as Record<string, string>[]) {
      const answer = await get(host.url, headers);
      expect(answer.status).toBe(200);
      expect(answer.cut).toBe(true);
    }
    expect(host.unexpected.length).toBe(before + 2);
  });

  it("answers a problem when a gzipped source fails before the compressor had output: nothing was sent yet", async () => {
    const before = host.unexpected.length;
    host.serve(() =>
      ndjsonBody(async function* () {
        yield [{ seq: 1 }];
        throw new CaseKitError("validation_failed", "the second page is refused");
      }),
    );
    const answer = await get(host.url, { "accept-encoding": "gzip" });
    expect(answer.status).toBe(400);
    expect(answer.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(answer.body.toString())).toMatchObject({ code: "validation_failed", detail: "the second page is refused" });
    // Answered as a problem, so not also reported as a failure mid-stream.
    expect(host.unexpected.length).toBe(before);
  });

  it("reads pages only as fast as the client reads (backpressure), and stops reading when the client leaves", async () => {
    let pulled = 0;
    let finished = false;
    const pageBytes = 100 * 60;
    host.serve(() =>
      ndjsonBody(async function* (signal) {
        try {
          yield* records(1_000_000, 100, () => pulled++)(signal);
        } finally {
          finished = true;
        }
      }),
    );
    const request = http.get(host.url);
    const response = await new Promise<http.IncomingMessage>((resolve) => request.on("response", resolve));
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const whilePaused = pulled;
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Nothing more is read while the client reads nothing: socket buffers and one high-water mark, no more.
    expect(pulled).toBe(whilePaused);
    expect(whilePaused * pageBytes).toBeLessThan(16 * 1024 * 1024);
    expect(whilePaused).toBeLessThan(10_000 / 10);
    request.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(finished).toBe(true);
  });

  it("answers HEAD with the headers only, and lets go of the source", async () => {
    let finished = false;
    host.serve(() =>
      ndjsonBody(async function* (signal) {
        try {
          yield* records(1_000_000, 100)(signal);
        } finally {
          finished = true;
        }
      }),
    );
    const answer = await new Promise<http.IncomingMessage>((resolve, reject) => http.request(host.url, { method: "HEAD" }, resolve).on("error", reject).end());
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/x-ndjson");
    answer.resume();
    await until(() => finished, "the source to be returned");
  });

  it("reads a cursor-paged list page after page", async () => {
    const seen: (string | null)[] = [];
    const pages = cursorPages(async (cursor) => {
      seen.push(cursor);
      const at = cursor === null ? 0 : Number(cursor);
      return { data: [at, at + 1], nextCursor: at + 2 < 6 ? String(at + 2) : null };
    });
    const out: number[] = [];
    for await (const page of pages) out.push(...page);
    expect(out).toEqual([0, 1, 2, 3, 4, 5]);
    expect(seen).toEqual([null, "2", "4"]);
  });

  it("answers the same body in-process (app.fetch, a web stream)", async () => {
    host.serve(() => ndjsonBody(records(1_000, 64)));
    const response = await host.app.fetch(new Request("http://local/stream"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    expect(lines(Buffer.from(await response.arrayBuffer())).map((r) => r.seq)).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1));
  });
});

describe("Accept-Encoding", () => {
  it("admits gzip when listed with q above 0, or covered by * when not listed", () => {
    expect(acceptsGzip(null)).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip("gzip")).toBe(true);
    expect(acceptsGzip("deflate, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip;q=0.000")).toBe(false);
    expect(acceptsGzip("br")).toBe(false);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("*;q=0")).toBe(false);
    expect(acceptsGzip("gzip;q=0, *")).toBe(false);
    expect(acceptsGzip("identity, x-gzip")).toBe(true);
    expect(acceptsGzip("gzip;q=abc")).toBe(false);
  });
});
