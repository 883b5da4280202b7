/**
 * What metering costs, out of process. `casekit serve` meters every key (no tier, no setting turns
 * it off), so this host builds the same kit and app as `casekit serve` does (server/cli.ts) and
 * serves it on the same node:http edge (`listenHttp`), with one change: the keys of one
 * organization are treated as the limiter treats callers it does not limit (`consume` answers
 * null at once: no decision, no headers). A metered and an unmetered key then hit the same process, in
 * turns, and their difference is the metering.
 *
 *   node <built metering-host.mjs> <port> <database> <unmetered organization id>   (scripts.ts builds it)
 */
import { createCaseKit } from "../../core/index.js";
import { createCaseKitApp } from "../../server/app.js";
import { loadHostConfig } from "../../server/config.js";
import { createHostLog } from "../../server/host-log.js";
import { listenHttp } from "../../server/listen.js";
import { openStorage } from "../../server/open-storage.js";

const [port, database, unmetered] = process.argv.slice(2);
const config = loadHostConfig({ database: database!, port: port!, host: "127.0.0.1" });
const log = createHostLog({ level: config.logLevel, logProbes: config.logProbes });
const storage = await openStorage(config.database, { sqliteWalLimitBytes: config.sqliteWalLimitBytes });
await storage.migrate();
const kit = createCaseKit({
  storage,
  config: { keyHashSecret: config.keyHashSecret, keyEnvironment: config.keyEnvironment, webhookAllowlist: config.webhookAllowlist, bulkMaxRows: config.bulkMaxRows },
  rateLimits: { deployment: config.rateLimits.deployment, failureMode: config.rateLimits.failureMode },
});
const consume = kit.limits.consume.bind(kit.limits);
kit.limits.consume = (principal) => (principal.organizationId === unmetered ? null : consume(principal));
const app = createCaseKitApp(kit, { bodyLimitBytes: config.bodyLimitBytes, trustProxy: config.trustProxy, logger: log.access, onUnexpectedError: log.unexpected });
const listener = await listenHttp(app, { port: config.port, host: config.host, requestId: () => kit.deps.ids.next("req") });
process.once("SIGTERM", () => {
  void listener.close(5_000).then(async () => {
    await storage.close();
    await log.flush();
    process.exit(0);
  });
});
