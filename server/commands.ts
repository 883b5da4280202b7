/**
 * The `casekit` commands and their flags, in one table: `casekit <command> --help`, `casekit
 * --help`, the README's "The CLI" section and each command's argument parsing all come from it.
 * A flag that names a setting (settings.ts) takes its meaning, values and default from there.
 */
import type { CommandName, SettingName } from "./settings.js";

export interface FlagSpec {
  name: string;
  /** The placeholder of its value (`<file>`); none for a switch. */
  value?: string;
  /** The setting this flag sets (its variable is the fallback); its meaning comes from the setting. */
  setting?: SettingName;
  meaning?: string;
  required?: boolean;
}

export interface CommandSpec {
  name: CommandName;
  /** One line, for `casekit --help`. */
  summary: string;
  /** What it does, in full: the README row and the body of `--help`. */
  description: string;
  flags: readonly FlagSpec[];
}

const database: FlagSpec = { name: "database", value: "<db>", setting: "CASEKIT_DATABASE" };
const schema: FlagSpec = { name: "schema", value: "<name>", setting: "CASEKIT_SCHEMA" };
const json = (what: string): FlagSpec => ({ name: "json", meaning: what });

export const commands: readonly CommandSpec[] = [
  {
    name: "init",
    summary: "create an organization, its admin user and an admin API key",
    description:
      "Migrates, then creates an organization, its admin user (generated password) and an admin API key with every scope and TLP clearance 4 (RED). Prints them once, then what to run next: `serve`, `export CASEKIT_KEY=…`, a `curl` with that key and the API reference's address. Run it again with another `--org` to add another organization.",
    flags: [
      { name: "org", value: "<name>", meaning: "the organization's name", required: true },
      { name: "email", value: "<email>", meaning: "the admin user's email address", required: true },
      { name: "name", value: "<name>", meaning: "the admin user's display name" },
      database,
      schema,
      json('print only `{"organizationId","userId","email","password","apiKey"}` on one line'),
    ],
  },
  {
    name: "serve",
    summary: "serve the API (and deliver webhooks)",
    description:
      "Migrates, then serves the API on `node:http` at `/api/v1` and runs the webhook dispatcher. Binds exactly the address asked for: a busy port, a host name that does not resolve or an address the machine does not have stops the start with that reason and exit code 1. On SIGINT or SIGTERM it stops accepting connections, closes idle keep-alive connections at once, lets requests in flight finish for up to `CASEKIT_SHUTDOWN_TIMEOUT` seconds (then cuts them, and says so), lets webhook attempts in flight finish, then closes the database and exits 0.",
    flags: [database, schema, { name: "port", value: "<n>", setting: "CASEKIT_PORT" }, { name: "host", value: "<address>", setting: "CASEKIT_HOST" }],
  },
  {
    name: "worker",
    summary: "deliver webhooks only (no API)",
    description:
      "Migrates, then only delivers webhooks: to deliver from another host, or to add delivery capacity on PostgreSQL. Stops gracefully on SIGINT or SIGTERM (attempts in flight finish).",
    flags: [database, schema],
  },
  {
    name: "migrate",
    summary: "apply the shipped migrations and exit",
    description: "Applies the migrations this version ships and exits. Every other command migrates by itself; this one is for deployments that migrate as a step of their own.",
    flags: [database, schema],
  },
  {
    name: "copy",
    summary: "move a SQLite deployment into an empty PostgreSQL database",
    description:
      "Copies every row of a SQLite deployment into an empty PostgreSQL database (or schema), migrated on the way, in one transaction (README \"Operations\", \"Moving to PostgreSQL\"). Refuses while another process (a running `serve` or `worker`) has the SQLite file open, and holds the file locked against writers while it copies. Shows rows per table on standard error as it goes, then prints the rows copied per table and the key-hash secret the PostgreSQL hosts need.",
    flags: [
      { name: "from", value: "<sqlite file>", meaning: "the SQLite database to copy", required: true },
      { name: "to", value: "<postgres url>", meaning: "the empty PostgreSQL database to copy into", required: true },
      schema,
      json('print only `{"tables":[{"table","rows","derived"}],"secretFile"}` on one line, no progress'),
    ],
  },
  {
    name: "backup",
    summary: "take an online backup of a SQLite database and its key-hash secret",
    description:
      "An online copy of a SQLite database while the server runs (the WAL included), with its key-hash secret beside it as `<file>.secret`; both mode 0600 (README \"Operations\"). Creates the destination's folder if missing (mode 0700); never overwrites a file. Shows progress on standard error when it takes more than a few seconds.",
    flags: [{ name: "to", value: "<file>", meaning: "the new backup file", required: true }, database],
  },
];

/** Every command takes these. */
export const commonFlags: readonly FlagSpec[] = [{ name: "help", meaning: "show this help" }];

export function commandSpec(name: string): CommandSpec | undefined {
  return commands.find((command) => command.name === name);
}

/** The command's flags as node:util parseArgs options (every value a string). */
export function parseOptions(command: CommandSpec): Record<string, { type: "string" | "boolean"; short?: string }> {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = { help: { type: "boolean", short: "h" } };
  for (const flag of command.flags) options[flag.name] = { type: flag.value === undefined ? "boolean" : "string" };
  return options;
}
