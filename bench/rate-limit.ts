/**
 * What metering costs: a minimal authenticated request (GET /api/v1/health: key check, owner
 * check, access log) with and without the rate limiter, against a bare h3 JSON endpoint, all
 * in-process (app.fetch) on SQLite in memory so that nothing but the code is measured.
 *
 *   npm run bench -- rate-limit
 */
import { H3 } from "h3";
import { createCaseKit } from "../core/index.js";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import { createCaseKitApp } from "../server/index.js";
import { measure, report } from "./measure.js";

const storage = createSqliteStorage({ path: ":memory:" });
await storage.migrate();
// Unlimited keys are metered only when the deployment gives them figures: figures far above what
// this loop can send, so the limiter runs its whole decision on every request and never refuses.
const metered = createCaseKit({
  storage,
  config: { keyHashSecret: "bench-key-hash-secret-0123456789abcdef" },
  rateLimits: { deployment: { unlimited: { perMinute: 1e9, perHour: 1e9, burst: 1e9 } } },
});
// Every key is metered (an unlimited key up to the deployment's ceiling), so no setting turns the
// limiter off: the unmetered kit answers as the limiter does for a caller it does not limit (no
// decision, no headers), as bench/serve/metering-host.ts does. The difference is the metering.
const unmetered = createCaseKit({
  storage,
  config: { keyHashSecret: "bench-key-hash-secret-0123456789abcdef" },
  rateLimits: { deployment: { unlimited: { perMinute: 1e9, perHour: 1e9, burst: 1e9 } } },
});
unmetered.limits.consume = () => null;
const { apiKey } = await metered.setup.initOrganization({ organizationName: "Bench SOC", email: "bench@example.test" });

const bare = new H3().get("/ping", () => ({ status: "ok" }));
const meteredApp = createCaseKitApp(metered);
const unmeteredApp = createCaseKitApp(unmetered);
const headers = { authorization: `Bearer ${apiKey}` };
const health = "http://bench.test/api/v1/health";

const figures = await measure([
  { name: "bare h3 JSON endpoint", run: async () => bare.fetch(new Request("http://bench.test/ping")) },
  { name: "GET /api/v1/health, key check, no limiter", run: async () => unmeteredApp.fetch(new Request(health, { headers })) },
  { name: "GET /api/v1/health, key check + rate limit (memory store)", run: async () => meteredApp.fetch(new Request(health, { headers })) },
]);
report("Rate limiting (in-process, SQLite in memory)", figures, "bare h3 JSON endpoint");
const [, without, withLimit] = figures;
const overhead = (withLimit!.cpuMicros / without!.cpuMicros - 1) * 100;
const byRate = (without!.perSecond / withLimit!.perSecond - 1) * 100;
console.log(`  limiter overhead on a minimal authenticated request: ${overhead.toFixed(2)} % of CPU per request (target < 5 %); ${byRate.toFixed(2)} % by throughput`);
await storage.close();
