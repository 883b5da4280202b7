/**
 * The NDJSON export of real audit events through `casekit serve` (issue 17): a SQLite file
 * initialised by `casekit init` is filled with N audit events through the storage port (chained
 * and stored exactly as the services write them, 10 000 per transaction), then `casekit serve`
 * from dist/ exports them over loopback to a client that counts lines and discards them, plain
 * and gzipped. The server's RSS (VmRSS from /proc, every 20 ms) is reported before and at peak
 * during each export, with the kernel's high-water mark (VmHWM) for the whole process life.
 *
 *   npm run bench -- audit-export-serve                        # 1 000 000 events
 *   BENCH_EVENTS=200000 npm run bench -- audit-export-serve    # a loaded machine
 *   BENCH_SKIP_BUILD=1 …                                       # dist/ is already current
 *   BENCH_HEAP_MB=64 …                                         # the server under a V8 heap cap
 */
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import type { NewAuditEvent } from "../core/index.js";
import { build, initOrganization, startServe } from "./serve/processes.js";

const total = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const perTransaction = 10_000;
const actions = ["case.updated", "task.updated", "alert.updated", "observable.created", "comment.created"];

function event(organizationId: string, userId: string, n: number): NewAuditEvent {
  const caseId = `case_${String(n % 5_000).padStart(26, "0")}`;
  return {
    id: `aud_${n.toString(36).padStart(26, "0")}`,
    organizationId,
    at: new Date(Date.UTC(2026, 0, 1) + n * 1_000).toISOString(),
    actor: { type: "apiKey", id: `key_${String(n % 13).padStart(26, "0")}`, onBehalfOf: userId },
    requestId: `req_${n.toString(36)}`,
    ip: "203.0.113.7",
    userAgent: "casekit-bench/1.0",
    action: actions[n % actions.length]!,
    target: { type: "case", id: caseId, caseId },
    outcome: "success",
    changes: [
      { path: "status", before: "open", after: "in_progress" },
      { path: "assigneeId", before: null, after: `user_${n % 97}` },
      { path: "description", before: "x".repeat(120), after: "y".repeat(140) },
    ],
    bulkRequestId: null,
    tlp: n % 4,
  };
}

function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

function download(url: string, key: string, gzip: boolean): Promise<{ status: number; bytes: number; newlines: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${key}`, ...(gzip ? { "accept-encoding": "gzip" } : {}) } }, (response) => {
        let bytes = 0;
        let newlines = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (!gzip) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
        });
        response.on("end", () => resolve({ status: response.statusCode!, bytes, newlines }));
        response.on("error", reject);
      })
      .on("error", reject);
  });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const dir = mkdtempSync(join(tmpdir(), "casekit-bench-audit-export-"));
try {
  if (process.env.BENCH_SKIP_BUILD !== "1") {
    console.log("building the package (dist/ is what casekit serve runs)…");
    build();
  }
  const database = join(dir, "audit.db");
  const org = initOrganization(database, "Audit Bench");
  const storage = createSqliteStorage({ path: database });
  const filling = Date.now();
  for (let start = 0; start < total; start += perTransaction) {
    const events: NewAuditEvent[] = [];
    for (let n = start; n < Math.min(start + perTransaction, total); n++) events.push(event(org.organizationId, org.userId, n));
    await storage.transaction((tx) => tx.audit.appendMany(events));
  }
  await storage.close();
  console.log(`filled ${total} audit events in ${((Date.now() - filling) / 1000).toFixed(1)} s`);

  const heapMb = process.env.BENCH_HEAP_MB;
  const server = await startServe("serve", database, { env: { CASEKIT_DISPATCHER: "off" }, ...(heapMb ? { nodeArgs: [`--max-old-space-size=${heapMb}`] } : {}) });
  console.log(`casekit serve${heapMb ? ` under a ${heapMb} MB heap cap` : ""}, ${total} events`);
  try {
    const url = `${server.origin}/api/v1/audit-events/export`;
    // Warm up (the first request loads the access cache and compiles the paths).
    await download(`${url}?action=none.none`, org.apiKey, false);
    console.log(`| export | lines | bytes on the wire | seconds | RSS before | RSS peak | growth |`);
    console.log(`|---|---|---|---|---|---|---|`);
    for (const gzip of [false, true]) {
      const before = rssOf(server.pid).rss;
      let peak = before;
      const timer = setInterval(() => (peak = Math.max(peak, rssOf(server.pid).rss)), 20);
      const started = Date.now();
      const result = await download(url, org.apiKey, gzip);
      clearInterval(timer);
      if (result.status !== 200) throw new Error(`export answered ${result.status}`);
      const lines = gzip ? "(gzip)" : String(result.newlines);
      console.log(`| ${gzip ? "gzip" : "plain"} | ${lines} | ${mb(result.bytes)} | ${((Date.now() - started) / 1000).toFixed(1)} | ${mb(before)} | ${mb(peak)} | ${mb(peak - before)} |`);
    }
    console.log(`server VmHWM (its RSS high-water mark since start): ${mb(rssOf(server.pid).hwm)}`);
  } finally {
    await server.stop();
  }
} finally {
  if (process.env.BENCH_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
}
