import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseWebhookAllowlist, rateLimitOverridesSchema } from "../core/index.js";
import type { RateLimitOverrides } from "../core/index.js";
import { dispatcherDefaults } from "../core/webhooks/dispatcher.js";
import { transportDefaults } from "../adapters/outbound/node-transport.js";

/** CASEKIT_LOG_LEVEL's values: pino's level names. */
export const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

/**
 * The host's settings. Each comes from a command-line flag, else an environment variable, else
 * a default; README "Configuration" lists them.
 */
export interface HostConfig {
  /** SQLite file path, `:memory:`, or a `postgres://` / `postgresql://` URL. */
  database: string;
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
  /** CASEKIT_LOG_LEVEL: the least severe level `casekit serve` and `casekit worker` write (default info). */
  logLevel: LogLevel;
  /** CASEKIT_LOG_PROBES: log successful answers to /livez, /readyz and /api/v1/health too (default false). */
  logProbes: boolean;
  /** CASEKIT_METRICS_TOKEN: the bearer token `GET /metrics` asks for; unset, only local clients get it. */
  metricsToken: string | undefined;
  rateLimits: {
    /** Lowers the tiers' figures; gives `unlimited` keys figures (none by default). */
    deployment: RateLimitOverrides;
    /** Where limiter state lives: this process's memory, or the shared PostgreSQL table. */
    store: "memory" | "postgres";
    /** What happens while the store cannot be reached: refuse (503) or admit unmetered. */
    failureMode: "closed" | "open";
  };
}

export const defaultDatabase = "./data/casekit.db";

export interface ConfigFlags {
  database?: string;
  port?: string;
  host?: string;
}

export function loadHostConfig(flags: ConfigFlags, env: NodeJS.ProcessEnv = process.env): HostConfig {
  const database = databaseSetting(flags.database, env);
  return {
    database,
    port: toInteger(flags.port ?? env.CASEKIT_PORT ?? env.PORT ?? "3000", "port", 1, 65_535),
    host: flags.host ?? env.CASEKIT_HOST ?? "127.0.0.1",
    keyHashSecret: resolveKeyHashSecret(database, env),
    keyEnvironment: env.CASEKIT_KEY_ENVIRONMENT ?? "live",
    bodyLimitBytes: toInteger(env.CASEKIT_BODY_LIMIT ?? String(1024 * 1024), "CASEKIT_BODY_LIMIT", 1024, 64 * 1024 * 1024),
    shutdownTimeoutMs: toInteger(env.CASEKIT_SHUTDOWN_TIMEOUT ?? "10", "CASEKIT_SHUTDOWN_TIMEOUT", 0, 3600) * 1000,
    webhookAllowlist: checkedAllowlist(env.CASEKIT_WEBHOOK_ALLOWLIST ?? ""),
    dispatcher: oneOf(env.CASEKIT_DISPATCHER ?? "on", "CASEKIT_DISPATCHER", ["on", "off"]),
    trustProxy: oneOf(env.CASEKIT_TRUST_PROXY ?? "false", "CASEKIT_TRUST_PROXY", ["true", "false"]) === "true",
    webhookRetentionDays: toInteger(env.CASEKIT_WEBHOOK_RETENTION_DAYS ?? "30", "CASEKIT_WEBHOOK_RETENTION_DAYS", 1, 3650),
    webhookConcurrency: toInteger(env.CASEKIT_WEBHOOK_CONCURRENCY ?? String(dispatcherDefaults.concurrency), "CASEKIT_WEBHOOK_CONCURRENCY", 1, 1024),
    webhookConcurrencyPerTarget: toInteger(env.CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET ?? String(dispatcherDefaults.concurrencyPerTarget), "CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET", 1, 256),
    webhookIdleSocketMs: toInteger(env.CASEKIT_WEBHOOK_IDLE_SOCKET_MS ?? String(transportDefaults.idleTimeoutMs), "CASEKIT_WEBHOOK_IDLE_SOCKET_MS", 100, 600_000),
    bulkMaxRows: toInteger(env.CASEKIT_BULK_MAX_ROWS ?? "10000", "CASEKIT_BULK_MAX_ROWS", 1, 1_000_000),
    logLevel: oneOf(env.CASEKIT_LOG_LEVEL ?? "info", "CASEKIT_LOG_LEVEL", logLevels),
    logProbes: oneOf(env.CASEKIT_LOG_PROBES ?? "false", "CASEKIT_LOG_PROBES", ["true", "false"]) === "true",
    sqliteWalLimitBytes: toInteger(env.CASEKIT_SQLITE_WAL_LIMIT ?? String(64 * 1024 * 1024), "CASEKIT_SQLITE_WAL_LIMIT", 1024 * 1024, 64 * 1024 * 1024 * 1024),
    metricsToken: metricsToken(env.CASEKIT_METRICS_TOKEN),
    rateLimits: {
      deployment: parseRateLimits(env.CASEKIT_RATE_LIMITS),
      store: oneOf(env.CASEKIT_RATE_LIMIT_STORE ?? (isPostgresUrl(database) ? "postgres" : "memory"), "CASEKIT_RATE_LIMIT_STORE", ["memory", "postgres"]),
      failureMode: oneOf(env.CASEKIT_RATE_LIMIT_FAILURE_MODE ?? "closed", "CASEKIT_RATE_LIMIT_FAILURE_MODE", ["closed", "open"]),
    },
  };
}

/** The database a command works on: the flag, else the environment, else the default file. */
export function databaseSetting(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? env.CASEKIT_DATABASE ?? env.DATABASE_URL ?? defaultDatabase;
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
export function resolveKeyHashSecret(database: string, env: NodeJS.ProcessEnv): string {
  const fromEnv = env.CASEKIT_KEY_HASH_SECRET;
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
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return secret;
}

function toInteger(value: string, name: string, min: number, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, not "${value}"`);
  }
  return number;
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

function oneOf<T extends string>(value: string, name: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`${name} must be one of ${allowed.join(", ")}, not "${value}"`);
  return value as T;
}
