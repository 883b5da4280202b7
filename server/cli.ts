import { chmodSync, constants, copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createCaseKit, version } from "../core/index.js";
import type { CaseKit, Storage } from "../core/index.js";
import { createCaseKitApp } from "./app.js";
import { describeError, redact } from "./cli-errors.js";
import { commandHelp, docsPath, overviewHelp } from "./cli-help.js";
import type { CommandSpec } from "./commands.js";
import { commandSpec, parseOptions } from "./commands.js";
import type { HostConfig } from "./config.js";
import { databaseSetting, isPostgresUrl, loadHostConfig, schemaSetting } from "./config.js";
import { openRateLimitStore, openStorage } from "./open-storage.js";
import { createHostLog } from "./host-log.js";
import type { HostLog } from "./host-log.js";
import { invokedAs } from "./invoked-as.js";
import { listenHttp } from "./listen.js";
import { createHostMetrics } from "./metrics.js";
import type { HostMetrics } from "./metrics.js";
import type { ProgressTiming } from "./progress.js";
import { createProgress, grouped } from "./progress.js";
import { loadOpenTelemetryTracer } from "./tracing.js";
import type { DispatchLoop } from "./worker.js";
import { startWebhookWorker } from "./worker.js";
import { startRefusalFlush } from "./refusal-flush.js";

export type Out = { log: (line: string) => void; error: (line: string) => void };

/** What a caller other than the terminal may change: when progress lines start (tests). */
export interface MainOptions {
  progress?: ProgressTiming;
}

type Values = Record<string, string | boolean | undefined>;
type Run = (values: Values, out: Out, options: MainOptions) => Promise<number>;

/** A mistake in the command line: said with the command's --help, never with a stack. */
class UsageError extends Error {}

/** Runs one CLI command; resolves to the process exit code (serve resolves once listening). */
export async function main(argv: string[], out: Out = console, options: MainOptions = {}): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      out.error(overviewHelp(version));
      return 1;
    case "help":
    case "--help":
    case "-h": {
      const topic = rest[0] === undefined ? undefined : commandSpec(rest[0]);
      if (rest[0] !== undefined && !topic) return unknownCommand(rest[0], out);
      out.log(topic ? commandHelp(topic) : overviewHelp(version));
      return 0;
    }
    case "--version":
    case "-v":
      out.log(version);
      return 0;
  }
  const spec = commandSpec(command);
  if (!spec) return unknownCommand(command, out);
  try {
    const values = parseCommandLine(spec, rest);
    if (values.help) {
      out.log(commandHelp(spec));
      return 0;
    }
    return await runners[spec.name](values, out, options);
  } catch (error) {
    if (error instanceof UsageError) out.error(`casekit ${command}: ${error.message} (see casekit ${command} --help)`);
    else out.error(`casekit ${command}: ${describeError(error)}`);
    return 1;
  }
}

function unknownCommand(command: string, out: Out): number {
  out.error(`casekit: unknown command "${command}"; casekit --help lists the commands (init, serve, worker, migrate, copy, backup)`);
  return 1;
}

/** The command's flags, as its table entry declares them: unknown ones, missing values and missing required flags are usage errors. */
function parseCommandLine(spec: CommandSpec, args: string[]): Values {
  let values: Values;
  try {
    ({ values } = parseArgs({ args, options: parseOptions(spec), strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(argumentProblem(spec, error));
  }
  if (values.help) return values;
  const missing = spec.flags.filter((flag) => flag.required && values[flag.name] === undefined);
  if (missing.length > 0) throw new UsageError(`${missing.map((flag) => `--${flag.name} ${flag.value}`).join(" and ")} ${missing.length > 1 ? "are" : "is"} required`);
  return values;
}

function argumentProblem(spec: CommandSpec, error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? "";
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const near = nearestFlag(spec, quoted.replace(/^-+/, ""));
      return `unknown flag ${quoted}${near ? `; did you mean --${near}?` : ""}`;
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument "${quoted}": every value follows its flag (--flag value)`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const flag = quoted.split(" ")[0] ?? quoted;
      return message.includes("does not take an argument") ? `${flag} takes no value` : `${flag} needs a value`;
    }
    default:
      return message;
  }
}

/** A flag of the command within two typos of what was typed. */
function nearestFlag(spec: CommandSpec, typed: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const { name } of [...spec.flags, { name: "help" }]) {
    const distance = editDistance(typed, name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

const str = (value: string | boolean | undefined): string | undefined => (typeof value === "string" ? value : undefined);

const runners: Record<CommandSpec["name"], Run> = { init, serve, worker, migrate, copy, backup };

/** The flags loadHostConfig takes (the ones that name a setting). */
function hostFlags(values: Values) {
  return { database: str(values.database), schema: str(values.schema), port: str(values.port), host: str(values.host) };
}

function storageOptions(config: HostConfig) {
  return { sqliteWalLimitBytes: config.sqliteWalLimitBytes, sqliteParsedRecordChars: config.sqliteParsedRecordChars, ...(config.schema ? { schema: config.schema } : {}) };
}

async function withKit<T>(config: HostConfig, work: (kit: CaseKit, storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage(config.database, storageOptions(config));
  try {
    await storage.migrate();
    const kit = createCaseKit({
      storage,
      config: { keyHashSecret: config.keyHashSecret, keyEnvironment: config.keyEnvironment, webhookAllowlist: config.webhookAllowlist, bulkMaxRows: config.bulkMaxRows, auditRetentionDays: config.auditRetentionDays },
    });
    return await work(kit, storage);
  } finally {
    await storage.close();
  }
}

async function init(values: Values, out: Out): Promise<number> {
  const config = loadHostConfig(hostFlags(values));
  const result = await withKit(config, (kit) =>
    kit.setup.initOrganization({
      organizationName: str(values.org)!,
      email: str(values.email)!,
      ...(values.name ? { name: str(values.name)! } : {}),
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
    return 0;
  }
  out.log(
    [
      `Organization ${result.organization.name} (${result.organization.id})`,
      `Admin user   ${result.user.email} (${result.user.id})`,
      `Password     ${result.password}`,
      `API key      ${result.apiKey}`,
      "",
      "The password and the API key are shown this once: casekit stores only their hashes.",
      "",
      ...nextSteps(config, values, result.apiKey),
    ].join("\n"),
  );
  return 0;
}

/** What `init` tells a newcomer to run next, with the values this run used. */
function nextSteps(config: HostConfig, values: Values, apiKey: string): string[] {
  const serveFlags = [values.database ? ` --database ${shellQuote(str(values.database)!)}` : "", values.schema ? ` --schema ${shellQuote(str(values.schema)!)}` : ""].join("");
  // A wildcard address is not one a client connects to; this machine's loopback is.
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "::1" : config.host;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
  const api = `${origin}/api/v1`;
  return [
    "Next:",
    "  1. Start the server (it runs until Ctrl-C; casekit serve --help for its settings):",
    `       ${invokedAs()} serve${serveFlags}`,
    "  2. In another terminal, keep the key and call the API with it:",
    `       export CASEKIT_KEY=${shellQuote(apiKey)}`,
    `       curl -s ${api}/health -H "Authorization: Bearer $CASEKIT_KEY"`,
    `       curl -s ${api}/cases -H "Authorization: Bearer $CASEKIT_KEY"`,
    "  3. Read the API reference in a browser:",
    `       ${origin}${docsPath}`,
    "  4. Sign in with the email and password above to create and revoke API keys:",
    `       ${origin}/account/`,
  ];
}

/** A word as sh reads it back unchanged. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

async function migrate(values: Values, out: Out, options: MainOptions): Promise<number> {
  const database = databaseSetting(str(values.database), process.env);
  const schema = schemaSetting(database, str(values.schema), process.env);
  if (!isPostgresUrl(database) && database !== ":memory:") {
    // SQLite migrates on this thread, so nothing can be said while it works: say beforehand what it will do.
    const { pendingSqliteMigrations } = await import("../adapters/sqlite/pending-migrations.js");
    const pending = pendingSqliteMigrations(database);
    if (pending.length > 0) out.error(`casekit migrate: applying ${pending.length} migration${pending.length > 1 ? "s" : ""} to ${database} (${pending.join(", ")}); on a large database this can take a while`);
  }
  const storage = await openStorage(database, schema ? { schema } : {});
  // PostgreSQL migrates off this thread (and may wait for another host's migration lock): say it still works.
  const stop = createProgress(out.error, "casekit migrate", options.progress).tick((ms) => `still applying migrations (${Math.round(ms / 1000)} s)`);
  try {
    await storage.migrate();
  } finally {
    stop();
    await storage.close();
  }
  out.log(`Migrations applied to ${redact(database)}${schema ? `, schema ${schema}` : ""}`);
  return 0;
}

async function serve(values: Values): Promise<number> {
  const config = loadHostConfig(hostFlags(values));
  const log = createHostLog({ level: config.logLevel, logProbes: config.logProbes });
  const storage = await openStorage(config.database, storageOptions(config));
  let limitStore: Awaited<ReturnType<typeof openRateLimitStore>> | undefined;
  let listener: Awaited<ReturnType<typeof listenHttp>>;
  let kit: CaseKit;
  let metrics: HostMetrics;
  let traced = false;
  const shuttingDown = new AbortController();
  try {
    await storage.migrate();
    limitStore = await openRateLimitStore(config.database, config.rateLimits.store, config.schema);
    kit = createCaseKit({
      storage,
      config: { keyHashSecret: config.keyHashSecret, keyEnvironment: config.keyEnvironment, webhookAllowlist: config.webhookAllowlist, bulkMaxRows: config.bulkMaxRows, auditRetentionDays: config.auditRetentionDays },
      rateLimits: {
        deployment: config.rateLimits.deployment,
        failureMode: config.rateLimits.failureMode,
        ...(limitStore ? { store: limitStore } : {}),
      },
    });
    metrics = createHostMetrics(kit);
    const tracer = config.otel ? await loadOpenTelemetryTracer() : undefined;
    traced = tracer !== undefined;
    if (config.otel && !tracer) log.logger.warn("CASEKIT_OTEL is true but @opentelemetry/api is not installed: requests are not traced");
    const app = createCaseKitApp(kit, {
      shutdownSignal: shuttingDown.signal,
      bodyLimitBytes: config.bodyLimitBytes,
      trustProxy: config.trustProxy,
      logger: log.access,
      onUnexpectedError: log.unexpected,
      metrics: metrics.requests,
      // Prometheus text at /metrics (server/metrics.ts): with CASEKIT_METRICS_TOKEN, or for local clients only.
      metricsEndpoint: { registry: metrics.registry, token: config.metricsToken },
      ...(tracer ? { tracer } : {}),
    });
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
  const deliveries = config.dispatcher === "on" ? startDeliveries(kit, config, log, metrics) : null;
  const refusals = startRefusalFlush(kit, { onError: (error) => log.logger.error({ error: error instanceof Error ? error.message : String(error) }, "writing aggregated refusals to the audit log failed; retried next window") });
  log.logger.info(
    {
      version,
      url: `${listener.url}api/v1`,
      address: listener.server.address(),
      databaseKind: databaseKind(config.database),
      database: redact(config.database),
      dispatcher: config.dispatcher,
      tracing: traced ? "opentelemetry" : "off",
    },
    `casekit ${version} listening on ${listener.url}api/v1`,
  );

  const stop = async (signal: string) => {
    log.logger.info({ signal, shutdownTimeoutMs: config.shutdownTimeoutMs }, `casekit: ${signal} received, shutting down (requests in flight get up to ${config.shutdownTimeoutMs / 1000} s)`);
    // Event streams end first, so only requests with an end of their own hold the drain.
    shuttingDown.abort();
    const { forced } = await listener.close(config.shutdownTimeoutMs);
    if (forced > 0) log.logger.warn({ requests: forced }, "shutdown deadline reached: requests still in flight were cut");
    else log.logger.info({ signal }, "requests drained");
    // The attempt in flight finishes and is recorded before the storage closes.
    await deliveries?.stop();
    // What the refusal log still counts is written before the storage closes.
    await refusals.stop().catch((error: unknown) => log.logger.error({ error: error instanceof Error ? error.message : String(error) }, "writing aggregated refusals at shutdown failed"));
    await limitStore?.close();
    await storage.close();
    log.logger.info({ signal, drained: forced === 0, cut: forced }, "casekit stopped");
    // The last lines, access lines of the drained requests included, reach the output before the exit.
    await log.flush();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  return 0;
}

/** Only the webhook dispatcher: for hosts that serve no API, or to add delivery capacity. */
async function worker(values: Values): Promise<number> {
  const config = loadHostConfig(hostFlags(values));
  const log = createHostLog({ level: config.logLevel, logProbes: config.logProbes });
  const storage = await openStorage(config.database, storageOptions(config));
  await storage.migrate();
  const kit = createCaseKit({
    storage,
    config: { keyHashSecret: config.keyHashSecret, keyEnvironment: config.keyEnvironment, webhookAllowlist: config.webhookAllowlist, bulkMaxRows: config.bulkMaxRows, auditRetentionDays: config.auditRetentionDays },
  });
  const deliveries = startDeliveries(kit, config, log);
  log.logger.info({ version, databaseKind: databaseKind(config.database), database: redact(config.database) }, `casekit ${version} worker delivering webhooks`);
  const stop = async (signal: string) => {
    log.logger.info({ signal }, `casekit: ${signal} received, shutting down`);
    await deliveries.stop();
    await storage.close();
    log.logger.info({ signal, drained: true }, "casekit stopped");
    await log.flush();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  return 0;
}

function startDeliveries(kit: CaseKit, config: HostConfig, log: HostLog, metrics?: HostMetrics): DispatchLoop {
  return startWebhookWorker(kit, {
    allowlist: config.webhookAllowlist,
    retentionDays: config.webhookRetentionDays,
    concurrency: config.webhookConcurrency,
    concurrencyPerTarget: config.webhookConcurrencyPerTarget,
    idleSocketMs: config.webhookIdleSocketMs,
    ...(metrics ? { onAttempt: metrics.webhookAttempt } : {}),
    // The message only: errors of the storage or the transport never carry secrets, but a stack adds nothing.
    onError: (error) => log.logger.error({ error: error instanceof Error ? error.message : String(error) }, "webhook dispatcher step failed"),
    auditSinks: {
      onError: (sinkId, error) => {
        metrics?.auditSinkError();
        log.logger.warn({ sinkId, error: error instanceof Error ? error.message : String(error) }, "audit sink attempt failed");
      },
      ...(metrics ? { onDelivered: (_sinkId: string, count: number) => metrics.auditSinkDelivered(count) } : {}),
    },
  });
}

/** Which database a host runs on, for its start-up line. */
function databaseKind(database: string): "postgres" | "sqlite-memory" | "sqlite" {
  return isPostgresUrl(database) ? "postgres" : database === ":memory:" ? "sqlite-memory" : "sqlite";
}

/**
 * An online backup of a SQLite deployment: the database (WAL included, while the server runs) and,
 * beside it, its `<database>.secret` (without the key-hash secret no API key of the copy works).
 * A missing folder of the destination is created (mode 0700); the files are mode 0600.
 */
async function backup(values: Values, out: Out, options: MainOptions): Promise<number> {
  const database = databaseSetting(str(values.database), process.env);
  const to = str(values.to)!;
  if (isPostgresUrl(database) || database === ":memory:") throw new Error("backup copies a SQLite file; back up PostgreSQL with pg_dump");
  const { backupSqliteFile } = await import("../adapters/sqlite/index.js");
  const folder = dirname(resolve(to));
  const created = !existsSync(folder);
  // A backup usually goes to a folder of its own: create it, readable by its owner only.
  if (created && existsSync(database)) mkdirSync(folder, { recursive: true, mode: 0o700 });
  const progress = createProgress(out.error, "casekit backup", options.progress);
  const { pages } = await backupSqliteFile(database, to, {
    onProgress: ({ totalPages, remainingPages }) => {
      const done = totalPages - remainingPages;
      progress.report(`${Math.floor((100 * done) / Math.max(totalPages, 1))} % (${grouped(done)} of ${grouped(totalPages)} pages)`);
    },
  });
  // better-sqlite3 calls back between steps, not after the last one: the end is reported here.
  progress.report(`100 % (${grouped(pages)} of ${grouped(pages)} pages)`, true);
  const secret = `${database}.secret`;
  const where = created ? ` (created the folder ${folder})` : "";
  if (existsSync(secret)) {
    copyFileSync(secret, `${to}.secret`, constants.COPYFILE_EXCL);
    chmodSync(`${to}.secret`, 0o600);
    out.log(`Backed up ${database} (${grouped(pages)} pages) to ${to}${where}, and its key-hash secret to ${to}.secret (keep both, apart from each other if you can).`);
  } else {
    out.log(`Backed up ${database} (${grouped(pages)} pages) to ${to}${where}. Its key-hash secret comes from CASEKIT_KEY_HASH_SECRET: keep that value too.`);
  }
  return 0;
}

/**
 * Moves a SQLite deployment into an empty PostgreSQL database (migrated on the way), in one
 * transaction. The key hashes travel with the data; the key-hash secret does not, so the output
 * says which value the PostgreSQL hosts need.
 */
async function copy(values: Values, out: Out, options: MainOptions): Promise<number> {
  const from = str(values.from)!;
  const to = str(values.to)!;
  if (isPostgresUrl(from) || from === ":memory:") throw new UsageError("--from takes the SQLite database file");
  if (!isPostgresUrl(to)) throw new UsageError("--to takes a postgres:// URL");
  const schema = schemaSetting(to, str(values.schema), process.env);
  const { copySqliteToPostgres } = await import("../adapters/copy/sqlite-to-postgres.js");
  const progress = createProgress(out.error, "casekit copy", options.progress);
  const { tables } = await copySqliteToPostgres({
    sqlitePath: from,
    connectionString: to,
    ...(schema ? { schema } : {}),
    ...(values.json ? {} : { onProgress: ({ table, copied, total }) => progress.report(`${table} ${grouped(copied)} of ${grouped(total)} rows`, copied === total) }),
  });
  const secretFile = resolve(`${from}.secret`);
  const hasSecretFile = existsSync(secretFile);
  if (values.json) {
    out.log(JSON.stringify({ tables, secretFile: hasSecretFile ? secretFile : null }));
    return 0;
  }
  const width = Math.max(...tables.map((t) => t.table.length));
  const hostFlagsText = schema ? ` and --schema ${schema} (or CASEKIT_SCHEMA)` : "";
  out.log(
    [
      `Copied ${from} to ${redact(to)}${schema ? `, schema ${schema}` : ""}:`,
      ...tables.map((t) => `  ${t.table.padEnd(width)}  ${String(t.rows).padStart(8)}${t.derived ? "  (rebuilt by PostgreSQL)" : ""}`),
      "",
      hasSecretFile
        ? `Set CASEKIT_KEY_HASH_SECRET on every PostgreSQL host to the contents of ${secretFile}, or no existing API key will work.`
        : "Set CASEKIT_KEY_HASH_SECRET on every PostgreSQL host to the value the SQLite host used, or no existing API key will work.",
      `Then start the hosts with --database (or CASEKIT_DATABASE) set to the PostgreSQL URL${hostFlagsText}; stop writing to the SQLite file.`,
    ].join("\n"),
  );
  return 0;
}
