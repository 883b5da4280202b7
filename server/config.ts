import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseWebhookAllowlist, rateLimitOverridesSchema } from "../core/index.js";
import type { RateLimitOverrides } from "../core/index.js";
import type { Env } from "./settings.js";
import { choiceSetting, integerSetting, rawSetting, settingLabel, settings } from "./settings.js";

/** CASEKIT_LOG_LEVEL's values: pino's level names. */
export const logLevels = settings.CASEKIT_LOG_LEVEL.value.values;
export type LogLevel = (typeof logLevels)[number];

/**
 * The host's settings. Each comes from a command-line flag, else an environment variable, else
 * a default; README "Configuration" lists them.
 */
export interface HostConfig {
  /** SQLite file path, `:memory:`, or a `postgres://` / `postgresql://` URL. */
  database: string;
  /** CASEKIT_SCHEMA: the PostgreSQL schema (none: the connection's current one). */
  schema: string | undefined;
  port: number;
  host: string;
  /** Secret of the keyed hash that protects stored API keys (see resolveKeyHashSecret). */
  keyHashSecret: string;
  keyEnvironment: string;
  bodyLimitBytes: number;
  /** CASEKIT_SHUTDOWN_TIMEOUT (seconds): how long `serve` lets requests in flight finish on SIGTERM/SIGINT. */
  shutdownTimeoutMs: number;
  /**
   * CASEKIT_WEBHOOK_ALLOWLIST: hosts, addresses and CIDR ranges (optionally `:port`) webhooks may
   * reach although the SSRF policy forbids them. Checked at start-up; empty allows nothing extra.
   */
  webhookAllowlist: string;
  /** CASEKIT_DISPATCHER: whether `casekit serve` also delivers webhooks (`casekit worker` always does). */
  dispatcher: "on" | "off";
  /** Take the client address from X-Forwarded-For (only behind a proxy that overwrites it). */
  trustProxy: boolean;
  /** CASEKIT_WEBHOOK_RETENTION_DAYS: finished deliveries and their attempts are kept this long. */
  webhookRetentionDays: number;
  /** CASEKIT_AUDIT_RETENTION_DAYS: audit events older than this are pruned behind a signed checkpoint (0: kept). */
  auditRetentionDays: number;
  /** CASEKIT_WEBHOOK_CONCURRENCY: webhook attempts in flight at once, in all. */
  webhookConcurrency: number;
  /** CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET: attempts in flight (and sockets open) to one target, a URL's scheme, host and port. */
  webhookConcurrencyPerTarget: number;
  /** CASEKIT_WEBHOOK_IDLE_SOCKET_MS: a kept-alive socket to a receiver is closed after this long unused. */
  webhookIdleSocketMs: number;
  /** CASEKIT_BULK_MAX_ROWS: most records one bulk request may touch (ids named or selectAll matched). */
  bulkMaxRows: number;
  /** CASEKIT_SQLITE_WAL_LIMIT: the WAL size (bytes) past which SQLite's WAL is checkpointed back to empty. */
  sqliteWalLimitBytes: number;
  /** CASEKIT_SQLITE_PARSED_RECORDS: how much JSON text of read records SQLite keeps parsed (UTF-16 code units). */
  sqliteParsedRecordChars: number;
  /** CASEKIT_LOG_LEVEL: the least severe level `casekit serve` and `casekit worker` write (default info). */
  logLevel: LogLevel;
  /** CASEKIT_LOG_PROBES: log successful answers to /livez, /readyz and /api/v1/health too (default false). */
  logProbes: boolean;
  /** CASEKIT_METRICS_TOKEN: the bearer token `GET /metrics` asks for; unset, only local clients get it. */
  metricsToken: string | undefined;
  /** CASEKIT_OTEL: trace every request with OpenTelemetry, when @opentelemetry/api is installed (default false). */
  otel: boolean;
  rateLimits: {
    /** Lowers the tiers' figures; gives `unlimited` keys figures (none by default). */
    deployment: RateLimitOverrides;
    /** Where limiter state lives: this process's memory, or the shared PostgreSQL table. */
    store: "memory" | "postgres";
    /** What happens while the store cannot be reached: refuse (503) or admit unmetered. */
    failureMode: "closed" | "open";
  };
}

export const defaultDatabase = settings.CASEKIT_DATABASE.default;

/** The flags that name a setting (commands.ts); every other setting comes from the environment. */
export type ConfigFlags = {
  database?: string;
  schema?: string;
  port?: string;
  host?: string;
};

/** Every setting is read through the table in settings.ts, which holds its help text too. */
export function loadHostConfig(flags: ConfigFlags, env: Env = process.env): HostConfig {
  const database = databaseSetting(flags.database, env);
  return {
    database,
    schema: schemaSetting(database, flags.schema, env),
    port: integerSetting("CASEKIT_PORT", env, flags),
    host: rawSetting("CASEKIT_HOST", env, flags)!,
    keyHashSecret: resolveKeyHashSecret(database, env),
    keyEnvironment: rawSetting("CASEKIT_KEY_ENVIRONMENT", env)!,
    bodyLimitBytes: integerSetting("CASEKIT_BODY_LIMIT", env),
    shutdownTimeoutMs: integerSetting("CASEKIT_SHUTDOWN_TIMEOUT", env) * 1000,
    webhookAllowlist: checkedAllowlist(rawSetting("CASEKIT_WEBHOOK_ALLOWLIST", env)!),
    dispatcher: choiceSetting("CASEKIT_DISPATCHER", env),
    trustProxy: choiceSetting("CASEKIT_TRUST_PROXY", env) === "true",
    webhookRetentionDays: integerSetting("CASEKIT_WEBHOOK_RETENTION_DAYS", env),
    auditRetentionDays: integerSetting("CASEKIT_AUDIT_RETENTION_DAYS", env),
    webhookConcurrency: integerSetting("CASEKIT_WEBHOOK_CONCURRENCY", env),
    webhookConcurrencyPerTarget: integerSetting("CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET", env),
    webhookIdleSocketMs: integerSetting("CASEKIT_WEBHOOK_IDLE_SOCKET_MS", env),
    bulkMaxRows: integerSetting("CASEKIT_BULK_MAX_ROWS", env),
    logLevel: choiceSetting("CASEKIT_LOG_LEVEL", env),
    logProbes: choiceSetting("CASEKIT_LOG_PROBES", env) === "true",
    sqliteWalLimitBytes: integerSetting("CASEKIT_SQLITE_WAL_LIMIT", env),
    sqliteParsedRecordChars: integerSetting("CASEKIT_SQLITE_PARSED_RECORDS", env),
    metricsToken: metricsToken(rawSetting("CASEKIT_METRICS_TOKEN", env)),
    otel: choiceSetting("CASEKIT_OTEL", env) === "true",
    rateLimits: {
      deployment: parseRateLimits(rawSetting("CASEKIT_RATE_LIMITS", env)),
      store: choiceSetting("CASEKIT_RATE_LIMIT_STORE", env, isPostgresUrl(database) ? "postgres" : "memory"),
      failureMode: choiceSetting("CASEKIT_RATE_LIMIT_FAILURE_MODE", env),
    },
  };
}

/** The database a command works on: the flag, else the environment, else the default file. */
export function databaseSetting(flag: string | undefined, env: Env): string {
  return rawSetting("CASEKIT_DATABASE", env, { database: flag })!;
}

/** The PostgreSQL schema named by the flag or the environment; naming one for a SQLite file is a mistake worth stopping for. */
export function schemaSetting(database: string, flag: string | undefined, env: Env): string | undefined {
  const schema = rawSetting("CASEKIT_SCHEMA", env, { schema: flag });
  if (schema === undefined || schema === "") return undefined;
  if (!isPostgresUrl(database)) throw new Error(`${settingLabel("CASEKIT_SCHEMA")} names a PostgreSQL schema, but the database is the SQLite file ${database}: unset it, or use a postgres:// database`);
  return schema;
}

export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/**
 * The key-hash secret must stay out of the database, or a stolen database would be enough to
 * test guessed keys offline. It comes from CASEKIT_KEY_HASH_SECRET; failing that, for a SQLite
 * file, from a `<database>.secret` file beside it, generated on first use with mode 0600. Several
 * hosts on one PostgreSQL must share it, so PostgreSQL requires the environment variable.
 */
export function resolveKeyHashSecret(database: string, env: Env): string {
  const fromEnv = rawSetting("CASEKIT_KEY_HASH_SECRET", env);
  if (fromEnv) {
    if (fromEnv.length < 32) throw new Error("CASEKIT_KEY_HASH_SECRET must be at least 32 characters long");
    return fromEnv;
  }
  if (isPostgresUrl(database)) {
    throw new Error("Set CASEKIT_KEY_HASH_SECRET (at least 32 characters, the same on every host) to use PostgreSQL");
  }
  if (database === ":memory:") return randomBytes(32).toString("base64url");
  const file = resolve(`${database}.secret`);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return secret;
}

/**
 * CASEKIT_RATE_LIMITS: JSON, inline or `@path/to/file.json`, lowering tiers per key, e.g.
 * `{"basic":{"perMinute":30},"unlimited":{"perMinute":20000,"perHour":1000000,"burst":2000}}`.
 */
export function parseRateLimits(value: string | undefined): RateLimitOverrides {
  if (value === undefined || value.trim() === "") return {};
  const text = value.startsWith("@") ? readFileSync(resolve(value.slice(1)), "utf8") : value;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("CASEKIT_RATE_LIMITS must be JSON (inline, or @file)");
  }
  const parsed = rateLimitOverridesSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
    throw new Error(`CASEKIT_RATE_LIMITS is not valid: ${problems}`);
  }
  return parsed.data;
}

/** A token worth the name, or none (unset or empty). */
function metricsToken(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (value.length < 16 || /\s/.test(value)) throw new Error("CASEKIT_METRICS_TOKEN must be at least 16 characters, without spaces");
  return value;
}

/** The allowlist as given, once it parses (a malformed entry stops the start with its reason). */
function checkedAllowlist(value: string): string {
  parseWebhookAllowlist(value);
  return value;
}

