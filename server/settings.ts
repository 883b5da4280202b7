/**
 * Every setting the `casekit` command reads, in one table: its environment variable, its flag (if
 * any), the values it takes, its default, what it means and which commands use it. loadHostConfig
 * reads settings only through this table (a name outside it does not type-check), and both
 * `casekit <command> --help` and the README's "Configuration" table are generated from it, so a
 * setting cannot exist without its help text.
 */
import { transportDefaults } from "../adapters/outbound/node-transport.js";
import { dispatcherDefaults } from "../core/webhooks/dispatcher.js";

export const commandNames = ["init", "serve", "worker", "migrate", "copy", "backup"] as const;
export type CommandName = (typeof commandNames)[number];

export type SettingValue =
  | { kind: "integer"; min: number; max: number; unit?: string }
  | { kind: "choice"; values: readonly string[] }
  | { kind: "text"; shape: string };

export interface SettingSpec {
  /** Read when the variable itself is unset (a name other tools use too). */
  alias?: string;
  /** The command-line flag that wins over the variable, without its dashes. */
  flag?: string;
  value: SettingValue;
  /** The value used when nothing is set; undefined when the default is worked out (see defaultText). */
  default?: string;
  /** The default in words, when the value alone would not say it. */
  defaultText?: string;
  meaning: string;
  commands: readonly CommandName[];
}

const onOff = { kind: "choice", values: ["on", "off"] } as const;
const trueFalse = { kind: "choice", values: ["true", "false"] } as const;
const both = ["serve", "worker"] as const;

export const settings = {
  CASEKIT_DATABASE: {
    alias: "DATABASE_URL",
    flag: "database",
    value: { kind: "text", shape: "SQLite file path, `:memory:`, or `postgres://` URL" },
    default: "./data/casekit.db",
    meaning: "The database casekit works on. A missing SQLite file is created mode 0600 (its -wal and -shm too), a missing folder 0700.",
    commands: ["init", "serve", "worker", "migrate", "backup"],
  },
  CASEKIT_SCHEMA: {
    flag: "schema",
    value: { kind: "text", shape: "PostgreSQL schema name (`a-z`, `0-9`, `_`)" },
    defaultText: "the connection's current schema (usually `public`)",
    meaning: "PostgreSQL only: the schema casekit's tables live in, created and migrated if missing. `copy` writes into it; give the hosts the same value.",
    commands: ["init", "serve", "worker", "migrate", "copy"],
  },
  CASEKIT_PORT: {
    alias: "PORT",
    flag: "port",
    value: { kind: "integer", min: 1, max: 65_535 },
    default: "3000",
    meaning: "The TCP port the API listens on. A busy port stops the start (never a silent move to another port).",
    commands: ["serve"],
  },
  CASEKIT_HOST: {
    flag: "host",
    value: { kind: "text", shape: "address or host name" },
    default: "127.0.0.1",
    meaning: "The address the API listens on; `0.0.0.0` behind a proxy or in a container. One the machine does not have stops the start.",
    commands: ["serve"],
  },
  CASEKIT_KEY_HASH_SECRET: {
    value: { kind: "text", shape: "at least 32 characters" },
    defaultText: "SQLite: generated into `<database>.secret` (mode 0600) on first use; PostgreSQL: required",
    meaning: "The secret of the keyed hash under which API keys are stored. Changing it invalidates every key; every host on one PostgreSQL database needs the same value.",
    commands: ["init", "serve", "worker"],
  },
  CASEKIT_KEY_ENVIRONMENT: {
    value: { kind: "text", shape: "label" },
    default: "live",
    meaning: "The label in new API keys (`ck_live_…`).",
    commands: ["init", "serve"],
  },
  CASEKIT_BODY_LIMIT: {
    value: { kind: "integer", min: 1024, max: 64 * 1024 * 1024, unit: "bytes" },
    default: String(1024 * 1024),
    meaning: "The largest request body the API reads; larger is answered 413.",
    commands: ["serve"],
  },
  CASEKIT_SHUTDOWN_TIMEOUT: {
    value: { kind: "integer", min: 0, max: 3600, unit: "seconds" },
    default: "10",
    meaning: "On SIGTERM or SIGINT, how long requests in flight may finish before their connections are cut (the drain deadline).",
    commands: ["serve"],
  },
  CASEKIT_RATE_LIMITS: {
    value: { kind: "text", shape: "JSON, inline or `@file.json`" },
    defaultText: "the tier table (README \"Rate limits\"); `unlimited` keys get the ceiling",
    meaning: "Lowers the rate-limit tiers' figures; every figure a whole number at or above the floors, else the start fails.",
    commands: ["serve"],
  },
  CASEKIT_RATE_LIMIT_STORE: {
    value: { kind: "choice", values: ["memory", "postgres"] },
    defaultText: "`postgres` on a PostgreSQL database, else `memory`",
    meaning: "Where rate-limit state lives: this process's memory, or the table all hosts on one PostgreSQL database share.",
    commands: ["serve"],
  },
  CASEKIT_RATE_LIMIT_FAILURE_MODE: {
    value: { kind: "choice", values: ["closed", "open"] },
    default: "closed",
    meaning: "While the rate-limit store cannot be reached: refuse requests (503), or admit them unmetered.",
    commands: ["serve"],
  },
  CASEKIT_WEBHOOK_ALLOWLIST: {
    value: { kind: "text", shape: "hosts, addresses and CIDR ranges, each optionally `:port`, comma-separated" },
    default: "",
    defaultText: "empty: public addresses only",
    meaning: "Webhook targets allowed although the SSRF policy forbids them (private or loopback addresses). Checked at start-up.",
    commands: both,
  },
  CASEKIT_DISPATCHER: {
    value: onOff,
    default: "on",
    meaning: "Whether `serve` also delivers webhooks (`worker` always does).",
    commands: ["serve"],
  },
  CASEKIT_WEBHOOK_RETENTION_DAYS: {
    value: { kind: "integer", min: 1, max: 3650, unit: "days" },
    default: "30",
    meaning: "How long finished webhook deliveries and their attempts are kept.",
    commands: both,
  },
  CASEKIT_AUDIT_RETENTION_DAYS: {
    value: { kind: "integer", min: 0, max: 36_500, unit: "days" },
    default: "0",
    meaning:
      "Audit events older than this are pruned (about once an hour, by the webhook dispatcher's loop) behind a signed checkpoint, so the rest of the chain still verifies; an organization's policy `auditRetentionDays` overrides it; 0 keeps them.",
    commands: both,
  },
  CASEKIT_WEBHOOK_CONCURRENCY: {
    value: { kind: "integer", min: 1, max: 1024 },
    default: String(dispatcherDefaults.concurrency),
    meaning: "Webhook attempts in flight at once, in all.",
    commands: both,
  },
  CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET: {
    value: { kind: "integer", min: 1, max: 256 },
    default: String(dispatcherDefaults.concurrencyPerTarget),
    meaning: "Webhook attempts in flight (and sockets open) to one target: a URL's scheme, host and port.",
    commands: both,
  },
  CASEKIT_WEBHOOK_IDLE_SOCKET_MS: {
    value: { kind: "integer", min: 100, max: 600_000, unit: "ms" },
    default: String(transportDefaults.idleTimeoutMs),
    meaning: "An unused kept-alive socket to a receiver is closed after this long (sooner when the receiver's `Keep-Alive: timeout` asks).",
    commands: both,
  },
  CASEKIT_BULK_MAX_ROWS: {
    value: { kind: "integer", min: 1, max: 1_000_000 },
    default: "10000",
    meaning: "The most records one bulk request may touch (embedders: `config.bulkMaxRows`).",
    commands: ["serve"],
  },
  CASEKIT_SQLITE_WAL_LIMIT: {
    value: { kind: "integer", min: 1024 * 1024, max: 64 * 1024 ** 3, unit: "bytes" },
    default: String(64 * 1024 * 1024),
    meaning: "The SQLite WAL size past which it is checkpointed back to empty (TRUNCATE; embedders: `walLimitBytes`).",
    commands: both,
  },
  CASEKIT_SQLITE_PARSED_RECORDS: {
    value: { kind: "integer", min: 0, max: 1024 ** 3, unit: "UTF-16 code units" },
    default: String(8 * 1024 * 1024),
    meaning: "How much JSON text of read records SQLite keeps parsed for reads that return the same text again (about twice that in memory with the records; 0 keeps none; embedders: `parsedRecordChars`).",
    commands: both,
  },
  CASEKIT_TRUST_PROXY: {
    value: trueFalse,
    default: "false",
    meaning: "Take the client address from `X-Forwarded-For`: only behind a proxy you run that overwrites the header.",
    commands: ["serve"],
  },
  CASEKIT_LOG_LEVEL: {
    value: { kind: "choice", values: ["trace", "debug", "info", "warn", "error", "fatal", "silent"] },
    default: "info",
    meaning: "The least severe log line written (JSON lines on standard output).",
    commands: both,
  },
  CASEKIT_LOG_PROBES: {
    value: trueFalse,
    default: "false",
    meaning: "Log successful answers to `/livez`, `/readyz`, `/api/v1/health` and `/metrics` too (failed ones always are).",
    commands: ["serve"],
  },
  CASEKIT_METRICS_TOKEN: {
    value: { kind: "text", shape: "at least 16 characters, no spaces" },
    defaultText: "unset: clients on this machine only",
    meaning: "The bearer token `GET /metrics` asks for (README \"Operations\").",
    commands: ["serve"],
  },
  CASEKIT_OTEL: {
    value: trueFalse,
    default: "false",
    meaning: "An OpenTelemetry span per request, when `@opentelemetry/api` and your SDK are installed (README \"Operations\"); without the API, a warning and no tracing.",
    commands: ["serve"],
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof settings;
type ChoiceSettingName = { [N in SettingName]: (typeof settings)[N]["value"] extends { kind: "choice" } ? N : never }[SettingName];
type IntegerSettingName = { [N in SettingName]: (typeof settings)[N]["value"] extends { kind: "integer" } ? N : never }[SettingName];
export type ChoiceOf<N extends ChoiceSettingName> = (typeof settings)[N]["value"]["values"][number];

export type Flags = { readonly [flag: string]: string | boolean | undefined };
export type Env = Record<string, string | undefined>;

function spec(name: SettingName): SettingSpec {
  return settings[name];
}

/** The setting as given (the flag, else the variable, else its alias), else its default, else undefined. */
export function rawSetting(name: SettingName, env: Env, flags: Flags = {}): string | undefined {
  const { flag, alias, default: fallback } = spec(name);
  const fromFlag = flag === undefined ? undefined : flags[flag];
  if (typeof fromFlag === "string") return fromFlag;
  return env[name] ?? (alias === undefined ? undefined : env[alias]) ?? fallback;
}

/** What a message names the setting by: its flag and variable. */
export function settingLabel(name: SettingName): string {
  const { flag } = spec(name);
  return flag === undefined ? name : `--${flag} (${name})`;
}

export function integerSetting(name: IntegerSettingName, env: Env, flags: Flags = {}): number {
  const value = spec(name).value as Extract<SettingValue, { kind: "integer" }>;
  const raw = rawSetting(name, env, flags) ?? "";
  const number = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(number) || number < value.min || number > value.max) {
    throw new Error(`${settingLabel(name)} must be a whole number from ${value.min} to ${value.max}, not "${raw}"`);
  }
  return number;
}

/** A choice setting; `fallback` stands in for a default the table describes in words. */
export function choiceSetting<N extends ChoiceSettingName>(name: N, env: Env, fallback?: ChoiceOf<N>): ChoiceOf<N> {
  const value = spec(name).value as Extract<SettingValue, { kind: "choice" }>;
  const raw = rawSetting(name, env) ?? fallback;
  if (raw === undefined || !value.values.includes(raw)) throw new Error(`${name} must be one of ${value.values.join(", ")}, not "${raw}"`);
  return raw as ChoiceOf<N>;
}

/** The settings a command uses, in table order. */
export function settingsOf(command: CommandName): SettingName[] {
  return (Object.keys(settings) as SettingName[]).filter((name) => spec(name).commands.includes(command));
}

/** The values a setting takes, in words. */
export function valueText(value: SettingValue): string {
  switch (value.kind) {
    case "integer":
      return `whole number ${value.min}–${value.max}${value.unit ? ` (${value.unit})` : ""}`;
    case "choice":
      return value.values.map((v) => `\`${v}\``).join(", ");
    case "text":
      return value.shape;
  }
}

/** The default, in words. */
export function defaultText(name: SettingName): string {
  const { default: fallback, defaultText: words } = spec(name);
  if (words !== undefined) return words;
  return fallback === undefined || fallback === "" ? "unset" : `\`${fallback}\``;
}
