import { chmodSync, constants, copyFileSync, existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createCaseKit, isCaseKitError, version } from "../core/index.js";
import type { CaseKit, Storage } from "../core/index.js";
import { createCaseKitApp } from "./app.js";
import type { HostConfig } from "./config.js";
import { databaseSetting, isPostgresUrl, loadHostConfig } from "./config.js";
import { openRateLimitStore, openStorage } from "./open-storage.js";
import { createHostLog } from "./host-log.js";
import type { HostLog } from "./host-log.js";
import { listenHttp } from "./listen.js";
import { createMetricsRegistry, registerMetricsRoute } from "./metrics.js";
import type { DispatchLoop } from "./worker.js";
import { startWebhookWorker } from "./worker.js";

const usage = `casekit ${version}: security case management

Usage:
  casekit init --org <name> --email <email> [--name <name>] [--database <url-or-path>] [--json]
  casekit serve [--database <url-or-path>] [--port <n>] [--host <h>]
  casekit worker [--database <url-or-path>]     (webhook deliveries only, no API)
  casekit migrate [--database <url-or-path>]
  casekit copy --from <sqlite file> --to <postgres url>  (move a SQLite deployment into an empty PostgreSQL database)
  casekit backup --to <file> [--database <path>]  (online copy of a SQLite database and its key-hash secret)

--database takes a SQLite file path (default ./data/casekit.db) or a postgres:// URL.
Environment: CASEKIT_DATABASE, CASEKIT_PORT, CASEKIT_HOST, CASEKIT_KEY_HASH_SECRET,
CASEKIT_KEY_ENVIRONMENT, CASEKIT_BODY_LIMIT, CASEKIT_WEBHOOK_ALLOWLIST, CASEKIT_DISPATCHER,
CASEKIT_WEBHOOK_RETENTION_DAYS, CASEKIT_TRUST_PROXY, CASEKIT_SHUTDOWN_TIMEOUT, CASEKIT_LOG_LEVEL,
CASEKIT_LOG_PROBES, CASEKIT_METRICS_TOKEN (see README, "Configuration").`;

type Out = { log: (line: string) => void; error: (line: string) => void };

/** Runs one CLI command; resolves to the process exit code (serve resolves once listening). */
export async function main(argv: string[], out: Out = console): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "init":
        return await init(rest, out);
      case "serve":
        return await serve(rest);
      case "worker":
        return await worker(rest);
      case "migrate":
        return await migrate(rest, out);
      case "copy":
        return await copy(rest, out);
      case "backup":
        return await backup(rest, out);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        out.log(usage);
        return command === undefined ? 1 : 0;
      case "--version":
        out.log(version);
        return 0;
      default:
        out.error(`Unknown command "${command}".\n\n${usage}`);
        return 1;
    }
  } catch (error) {
    out.error(`casekit ${command}: ${describe(error)}`);
    return 1;
  }
}

const databaseOption = { database: { type: "string" } } as const;

async function withKit<T>(config: HostConfig, work: (kit: CaseKit, storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage(config.database, { sqliteWalLimitBytes: config.sqliteWalLimitBytes });
  try {
    await storage.migrate();
    const kit = createCaseKit({
      storage,
      config: { keyHashSecret: config.keyHashSecret, keyEnvironment: config.keyEnvironment, webhookAllowlist: config.webhookAllowlist, bulkMaxRows: config.bulkMaxRows },
    });
    return await work(kit, storage);
  } finally {
    await storage.close();
  }
}

async function init(args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...databaseOption, org: { type: "string" }, email: { type: "string" }, name: { type: "string" }, json: { type: "boolean" } },
  });
  if (!values.org || !values.email) throw new Error("--org and --email are required");
  const config = loadHostConfig(values);
  const result = await withKit(config, (kit) =>
    kit.setup.initOrganization({
      organizationName: values.org!,
      email: values.email!,
      ...(values.name ? { name: values.name } : {}),
    }),
  );
  if (values.json) {
    out.log(
      JSON.stringify({
        organizationId: result.organization.id,
        userId: result.user.id,
        email: result.user.email,
        password: result.password,
        apiKey: result.apiKey,
      }),
    );
  } else {
    out.log(
      [
        `Organization ${result.organization.name} (${result.organization.id})`,
        `Admin user   ${result.user.email} (${result.user.id})`,
        `Password     ${result.password}`,
        `API key      ${result.apiKey}`,
        "",
        "The password and the API key are shown this once: casekit stores only their hashes.",
      ].join("\n"),
    );
  }
  return 0;
}

async function migrate(args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({ args, options: databaseOption });
  const config = loadHostConfig(values);
  await withKit(config, async () => undefined);
  out.log(`Migrations applied to ${redact(config.database)}`);
  return 0;
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...databaseOption, port: { type: "string" }, host: { type: "string" } },
  });
  const config = loadHostConfig(values);
  const log = createHostLog({ level: config.logLevel, logProbes: config.logProbes });
  const storage = await openStorage(config.database, { sqliteWalLimitBytes: config.sqliteWalLimitBytes });
  let limitStore: Awaited<ReturnType<typeof openRateLimitStore>> | undefined;
  let listener: Awaited<ReturnType<typeof listenHttp>>;
  let kit: CaseKit;
  try {
    await storage.migrate();
    limitStore = await openRateLimitStore(config.database, config.rateLimits.store);
    kit = createCaseKit({
      storage,
      config: { keyHashSecret: config.keyHashSecret, keyEnvironment: config.keyEnvironment, webhookAllowlist: config.webhookAllowlist, bulkMaxRows: config.bulkMaxRows },
      rateLimits: {
        deployment: config.rateLimits.deployment,
        failureMode: config.rateLimits.failureMode,
        ...(limitStore ? { store: limitStore } : {}),
      },
    });
    const app = createCaseKitApp(kit, {
      bodyLimitBytes: config.bodyLimitBytes,
      trustProxy: config.trustProxy,
      logger: log.access,
      onUnexpectedError: log.unexpected,
    });
    // Prometheus text at /metrics (server/metrics.ts): with CASEKIT_METRICS_TOKEN, or for local clients only.
    registerMetricsRoute(app, { registry: createMetricsRegistry(storage), token: config.metricsToken, kit, logger: log.access });
    listener = await listenHttp(app, {
      port: config.port,
      host: config.host,
      requestId: () => kit.deps.ids.next("req"),
      onClientError: (line) => log.logger.info(line, "request refused before routing"),
    });
  } catch (error) {
    // Nothing may keep the process alive after a failed start: close what was opened.
    await limitStore?.close();
    await storage.close();
    await log.flush();
    throw error;
  }
  const deliveries = config.dispatcher === "on" ? startDeliveries(kit, config, log) : null;
  log.logger.info(
    { version, url: `${listener.url}api/v1`, database: redact(config.database), dispatcher: config.dispatcher },
    `casekit ${version} listening on ${listener.url}api/v1`,
  );

  const stop = async (signal: string) => {
    log.logger.info({ signal, shutdownTimeoutMs: config.shutdownTimeoutMs }, `casekit: ${signal} received, shutting down (requests in flight get up to ${config.shutdownTimeoutMs / 1000} s)`);
    const { forced } = await listener.close(config.shutdownTimeoutMs);
    if (forced > 0) log.logger.warn({ requests: forced }, "shutdown deadline reached: requests still in flight were cut");
    // The attempt in flight finishes and is recorded before the storage closes.
    await deliveries?.stop();
    await limitStore?.close();
    await storage.close();
    log.logger.info("casekit stopped");
    // The last lines, access lines of the drained requests included, reach the output before the exit.
    await log.flush();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  return 0;
}

/** Only the webhook dispatcher: for hosts that serve no API, or to add delivery capacity. */
async function worker(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: databaseOption });
  const config = loadHostConfig(values);
  const log = createHostLog({ level: config.logLevel, logProbes: config.logProbes });
  const storage = await openStorage(config.database, { sqliteWalLimitBytes: config.sqliteWalLimitBytes });
  await storage.migrate();
  const kit = createCaseKit({
    storage,
    config: { keyHashSecret: config.keyHashSecret, keyEnvironment: config.keyEnvironment, webhookAllowlist: config.webhookAllowlist, bulkMaxRows: config.bulkMaxRows },
  });
  const deliveries = startDeliveries(kit, config, log);
  log.logger.info({ version, database: redact(config.database) }, `casekit ${version} worker delivering webhooks`);
  const stop = async (signal: string) => {
    log.logger.info({ signal }, `casekit: ${signal} received, shutting down`);
    await deliveries.stop();
    await storage.close();
    log.logger.info("casekit stopped");
    await log.flush();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  return 0;
}

function startDeliveries(kit: CaseKit, config: HostConfig, log: HostLog): DispatchLoop {
  return startWebhookWorker(kit, {
    allowlist: config.webhookAllowlist,
    retentionDays: config.webhookRetentionDays,
    concurrency: config.webhookConcurrency,
    concurrencyPerTarget: config.webhookConcurrencyPerTarget,
    idleSocketMs: config.webhookIdleSocketMs,
    // The message only: errors of the storage or the transport never carry secrets, but a stack adds nothing.
    onError: (error) => log.logger.error({ error: error instanceof Error ? error.message : String(error) }, "webhook dispatcher step failed"),
  });
}

/** Database URLs may carry a password: never print it. */
function redact(database: string): string {
  return database.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
}

function describe(error: unknown): string {
  if (isCaseKitError(error)) return error.errors?.length ? `${error.message} (${error.errors.map((e) => `${e.path}: ${e.message}`).join("; ")})` : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * An online backup of a SQLite deployment: the database (WAL included, while the server runs) and,
 * beside it, its `<database>.secret` (without the key-hash secret no API key of the copy works).
 */
async function backup(args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({ args, options: { ...databaseOption, to: { type: "string" } } });
  const database = databaseSetting(values.database, process.env);
  if (!values.to) throw new Error("--to <file> is required");
  if (isPostgresUrl(database) || database === ":memory:") throw new Error("backup copies a SQLite file; back up PostgreSQL with pg_dump");
  const { backupSqliteFile } = await import("../adapters/sqlite/index.js");
  const { pages } = await backupSqliteFile(database, values.to);
  const secret = `${database}.secret`;
  if (existsSync(secret)) {
    copyFileSync(secret, `${values.to}.secret`, constants.COPYFILE_EXCL);
    chmodSync(`${values.to}.secret`, 0o600);
    out.log(`Backed up ${database} (${pages} pages) to ${values.to}, and its key-hash secret to ${values.to}.secret (keep both, apart from each other if you can).`);
  } else {
    out.log(`Backed up ${database} (${pages} pages) to ${values.to}. Its key-hash secret comes from CASEKIT_KEY_HASH_SECRET: keep that value too.`);
  }
  return 0;
}

/**
 * Moves a SQLite deployment into an empty PostgreSQL database (migrated on the way), in one
 * transaction. The key hashes travel with the data; the key-hash secret does not, so the output
 * says which value the PostgreSQL hosts need.
 */
async function copy(args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({ args, options: { from: { type: "string" }, to: { type: "string" } } });
  if (!values.from || !values.to) throw new Error("--from <sqlite file> and --to <postgres url> are required");
  if (isPostgresUrl(values.from) || values.from === ":memory:") throw new Error("--from takes the SQLite database file");
  if (!isPostgresUrl(values.to)) throw new Error("--to takes a postgres:// URL");
  const { copySqliteToPostgres } = await import("../adapters/copy/sqlite-to-postgres.js");
  const { tables } = await copySqliteToPostgres({ sqlitePath: values.from, connectionString: values.to });
  const width = Math.max(...tables.map((t) => t.table.length));
  const secretFile = resolve(`${values.from}.secret`);
  out.log(
    [
      `Copied ${values.from} to ${redact(values.to)}:`,
      ...tables.map((t) => `  ${t.table.padEnd(width)}  ${String(t.rows).padStart(8)}${t.derived ? "  (rebuilt by PostgreSQL)" : ""}`),
      "",
      existsSync(secretFile)
        ? `Set CASEKIT_KEY_HASH_SECRET on every PostgreSQL host to the contents of ${secretFile}, or no existing API key will work.`
        : "Set CASEKIT_KEY_HASH_SECRET on every PostgreSQL host to the value the SQLite host used, or no existing API key will work.",
      "Then start the hosts with --database (or CASEKIT_DATABASE) set to the PostgreSQL URL; stop writing to the SQLite file.",
    ].join("\n"),
  );
  return 0;
}
