/**
 * Webhook delivery, on a SQLite file, to a receiver on loopback:
 *
 * - delivery throughput: N committed events fanned out, signed and delivered by the dispatcher
 *   (deliveries per second), beside the same number of plain POSTs through the same transport
 *   with no database, no signature and no bookkeeping;
 * - the latency the outbox adds to the request that causes an event: POST /api/v1/cases in an
 *   organization without subscriptions, with three matching subscriptions (the dispatcher in
 *   another process), and with the dispatcher looping in this process, as ratios against a bare
 *   h3 JSON endpoint in the same run.
 *
 *   npm run bench -- webhooks          (BENCH_DELIVERIES=2000 for a quicker run)
 */
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { H3 } from "h3";
import { createNodeTransport } from "../adapters/outbound/node-transport.js";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import { createCaseKit, parseWebhookAllowlist } from "../core/index.js";
import { createCaseKitApp } from "../server/index.js";
import { startDispatchLoop } from "../server/worker.js";
import { measure, report } from "./measure.js";

const deliveries = Number(process.env.BENCH_DELIVERIES ?? 5_000);
const dir = mkdtempSync(join(tmpdir(), "casekit-bench-webhooks-"));
let received = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    received += 1;
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const storage = createSqliteStorage({ path: join(dir, "bench.db") });
await storage.migrate();
const kit = createCaseKit({
  storage,
  config: { keyHashSecret: "bench-key-hash-secret-0123456789abcdef", webhookAllowlist: "127.0.0.1" },
  // Figures far above what this loop sends, so the limiter decides on every request and never refuses.
  rateLimits: { deployment: { unlimited: { perMinute: 1e9, perHour: 1e9, burst: 1e9 } } },
});
const quiet = await kit.setup.initOrganization({ organizationName: "Quiet SOC", email: "quiet@example.test" });
const busy = await kit.setup.initOrganization({ organizationName: "Busy SOC", email: "busy@example.test" });
const busyAdmin = await kit.authenticateKey(busy.apiKey);
const transport = createNodeTransport({ allowlist: parseWebhookAllowlist("127.0.0.1") });

// 1. Delivery throughput.
const hook = await kit.webhooks.create(busyAdmin, { name: "Throughput", url, events: ["case.created"] });
for (let n = 0; n < deliveries; n++) await kit.cases.create(busyAdmin, { title: `Event ${n}`, severity: 2 });
const dispatcher = kit.createDispatcher({ transport, batchSize: 200, concurrency: 16 });
received = 0;
let started = performance.now();
while (received < deliveries) await dispatcher.step();
const dispatched = deliveries / ((performance.now() - started) / 1000);

started = performance.now();
let sent = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (sent < deliveries) {
      sent += 1;
      await transport.send({ url, method: "POST", headers: { "content-type": "application/json" }, body: '{"type":"case.created"}', timeoutMs: 5_000 });
    }
  }),
);
const plain = deliveries / ((performance.now() - started) / 1000);
console.log(`\nWebhook delivery to a loopback receiver (SQLite file, ${deliveries} events, concurrency 16)`);
console.log(`  dispatcher (fan-out, sign, send, record)   ${dispatched.toFixed(0).padStart(8)} deliveries/s`);
console.log(`  plain POSTs through the same transport     ${plain.toFixed(0).padStart(8)} requests/s   dispatcher = ${((dispatched / plain) * 100).toFixed(1)} %`);
await kit.webhooks.update(busyAdmin, hook.id, { status: "disabled" });

// 2. What the outbox adds to the request that causes the event.
for (let n = 0; n < 3; n++) await kit.webhooks.create(busyAdmin, { name: `Subscriber ${n}`, url, events: ["case.*"] });
while ((await dispatcher.step()).events > 0); // drain the set-up's own events
const app = createCaseKitApp(kit);
const bare = new H3().get("/ping", () => ({ status: "ok" }));
const create = (key: string) => () =>
  app.fetch(
    new Request("http://bench.test/api/v1/cases", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Suspicious sign-in", severity: 2, tags: [{ name: "bench" }] }),
    }),
  );
const withoutLoop = await measure(
  [
    { name: "bare h3 JSON endpoint", run: async () => bare.fetch(new Request("http://bench.test/ping")) },
    { name: "POST /cases, no subscription", run: create(quiet.apiKey) },
    { name: "POST /cases, 3 subscriptions, dispatcher elsewhere", run: create(busy.apiKey) },
  ],
  { requests: 2_000, rounds: 5 },
);
const loop = startDispatchLoop(kit.createDispatcher({ transport, batchSize: 200, concurrency: 16 }), { idleMs: 50 });
const withLoop = await measure(
  [
    { name: "bare h3 JSON endpoint", run: async () => bare.fetch(new Request("http://bench.test/ping")) },
    { name: "POST /cases, 3 subscriptions, dispatcher in this process", run: create(busy.apiKey) },
  ],
  { requests: 2_000, rounds: 5 },
);
await loop.stop();
report("Request latency added by the outbox (in-process, SQLite file)", withoutLoop, "bare h3 JSON endpoint");
report("… while this process also delivers", withLoop, "bare h3 JSON endpoint");
const [, none, three] = withoutLoop;
console.log(`  a request that emits an event for 3 subscriptions runs at ${((three!.perSecond / none!.perSecond) * 100).toFixed(1)} % of one that reaches none`);

receiver.close();
await storage.close();
rmSync(dir, { recursive: true, force: true });
