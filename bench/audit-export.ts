/**
 * NDJSON export memory: synthetic audit events (with a `changes` list, ~600 bytes a line) read
 * page by page from an async source, streamed by the host's streamed answer (the same
 * defineHostHandler every route goes through) over a real loopback socket to a client that
 * discards what it reads. RSS is sampled every 20 ms; reported per run: lines, bytes on the wire,
 * seconds, and RSS growth (peak minus the RSS before the run). Constant memory shows as the same
 * growth for 200 000 and 1 000 000 lines. The baseline: the same lines built into one string
 * first (what a non-streaming answer does), for the smallest count.
 *
 *   npm run bench -- audit-export
 *   BENCH_LINES=200000,1000000,2000000 npm run bench -- audit-export
 *   BENCH_BASELINE=off node --max-old-space-size=48 --import tsx bench/audit-export.ts
 *
 * The last one is the sharpest proof: a 48 MB heap exports 700 MB of NDJSON; the buffered baseline
 * dies of heap exhaustion there. RSS growth alone mostly shows how far V8 lets the heap grow
 * before collecting, which is why the figure barely depends on the line count.
 */
import http from "node:http";
import { ndjsonBody } from "../server/streaming/ndjson-body.js";
import { auditEvent } from "../test/audit-delivery/synthetic-audit.js";
import { streamingHost } from "../test/server/streamed-answer-host.js";

const counts = (process.env.BENCH_LINES ?? "200000,1000000").split(",").map(Number);
const pageSize = 500;

function syntheticLine(seq: number) {
  return {
    ...auditEvent(seq),
    sourceAddress: "203.0.113.7",
    userAgent: "casekit-bench/1.0",
    changes: [
      { path: "status", before: "open", after: "in_progress" },
      { path: "assigneeId", before: null, after: `user_${seq % 97}` },
      { path: "description", before: "x".repeat(120), after: "y".repeat(140) },
    ],
  };
}

async function* pages(count: number, signal: AbortSignal) {
  for (let start = 1; start <= count; start += pageSize) {
    signal.throwIfAborted();
    // A database read's latency, so pages are not produced faster than any real source.
    await new Promise((resolve) => setImmediate(resolve));
    const page = [];
    for (let seq = start; seq < Math.min(start + pageSize, count + 1); seq++) page.push(syntheticLine(seq));
    yield page;
  }
}

function download(url: string, gzip: boolean): Promise<{ bytes: number; newlines: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: gzip ? { "accept-encoding": "gzip" } : {} }, (response) => {
        let bytes = 0;
        let newlines = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (!gzip) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
        });
        response.on("end", () => resolve({ bytes, newlines }));
        response.on("error", reject);
      })
      .on("error", reject);
  });
}

function sampler() {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().rss);
      return { before, peak, growth: peak - before };
    },
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const settle = async () => {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
};

const host = await streamingHost();
console.log(`audit-export: NDJSON of synthetic audit events, pages of ${pageSize}, over loopback (node ${process.version})`);
/** One line per run as it finishes, so a run that dies (the baseline under a heap cap) leaves the others. */
const report = (row: Record<string, string | number>) => console.log(Object.entries(row).map(([k, v]) => `${k}: ${v}`).join(" | "));

// Warm-up: JIT, socket and zlib buffers, so the first measured run does not pay for them.
for (const gzip of [false, true]) {
  host.serve(() => ndjsonBody((signal) => pages(20_000, signal)));
  await download(host.url, gzip);
}

for (const count of counts) {
  for (const gzip of [false, true]) {
    await settle();
    host.serve(() => ndjsonBody((signal) => pages(count, signal)));
    const memory = sampler();
    const started = performance.now();
    const { bytes, newlines } = await download(host.url, gzip);
    const seconds = (performance.now() - started) / 1000;
    const { before, growth } = memory.stop();
    if (!gzip && newlines !== count) throw new Error(`expected ${count} lines, read ${newlines}`);
    report({ lines: count, gzip: gzip ? "yes" : "no", wire: mb(bytes), seconds: seconds.toFixed(1), "lines/s": Math.round(count / seconds), "rss before": mb(before), "rss growth": mb(growth) });
  }
}

// Baseline: the smallest count built into one body before answering.
await settle();
if (process.env.BENCH_BASELINE !== "off") {
  const count = Math.min(...counts);
  const memory = sampler();
  const started = performance.now();
  let body = "";
  for await (const page of pages(count, new AbortController().signal)) for (const line of page) body += `${JSON.stringify(line)}\n`;
  host.serve(() => ndjsonBody(async function* () {
    yield [body];
  }));
  await download(host.url, false);
  const seconds = (performance.now() - started) / 1000;
  const { before, growth } = memory.stop();
  report({ lines: count, gzip: "no (buffered baseline)", wire: mb(Buffer.byteLength(body)), seconds: seconds.toFixed(1), "lines/s": Math.round(count / seconds), "rss before": mb(before), "rss growth": mb(growth) });
}
await host.listener.close(1_000);
