/**
 * The words of `casekit --help`, `casekit <command> --help` and the README's "The CLI" and
 * "Configuration" tables, all written from the two tables (commands.ts, settings.ts).
 */
import type { CommandSpec, FlagSpec } from "./commands.js";
import { commands, commonFlags } from "./commands.js";
import type { SettingName } from "./settings.js";
import { defaultText, settings, settingsOf, valueText } from "./settings.js";

const width = 100;

/** Where the API reference is, once `serve` runs with the defaults. */
export const docsPath = "/api/v1/docs";

export function usageLine(command: CommandSpec): string {
  const parts = command.flags.map((flag) => {
    const text = flag.value ? `--${flag.name} ${flag.value}` : `--${flag.name}`;
    return flag.required ? text : `[${text}]`;
  });
  return ["casekit", command.name, ...parts].join(" ");
}

export function overviewHelp(version: string): string {
  const nameWidth = Math.max(...commands.map((c) => c.name.length));
  return [
    `casekit ${version}: security case management`,
    "",
    "Usage: casekit <command> [flags]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(nameWidth)}  ${c.summary}`),
    "",
    "  casekit <command> --help   its flags and environment variables",
    "  casekit --version          the version",
    "",
    "Flags win over environment variables, which win over defaults. README: \"The CLI\", \"Configuration\".",
  ].join("\n");
}

export function commandHelp(command: CommandSpec): string {
  const flags = [...command.flags, ...commonFlags];
  const label = (flag: FlagSpec) => (flag.name === "help" ? "-h, --help" : `--${flag.name}${flag.value ? ` ${flag.value}` : ""}`);
  const labelWidth = Math.max(...flags.map((f) => label(f).length));
  const lines = [`casekit ${command.name}: ${command.summary}`, "", `Usage: ${usageLine(command)}`, "", ...wrap(plain(command.description), width, "  "), "", "Flags:"];
  for (const flag of flags) {
    const meaning = flag.setting ? `${flagMeaning(flag)}; sets ${flag.setting} (below)` : flagMeaning(flag);
    lines.push(...hang(`  ${label(flag).padEnd(labelWidth)}  `, plain(meaning)));
  }
  const names = settingsOf(command.name);
  if (names.length > 0) {
    lines.push("", "Environment (a flag wins over its variable, the variable over the default):");
    for (const name of names) {
      const setting: { alias?: string; flag?: string; meaning: string } = settings[name];
      const also = [setting.alias ? `or ${setting.alias}` : "", setting.flag ? `flag --${setting.flag}` : ""].filter(Boolean).join("; ");
      lines.push(`  ${name}${also ? ` (${also})` : ""}`);
      lines.push(...wrap(plain(`${setting.meaning} Values: ${valueText(settings[name].value)}. Default: ${defaultText(name)}.`), width, "      "));
    }
  }
  return lines.join("\n");
}

function flagMeaning(flag: FlagSpec): string {
  const meaning = flag.meaning ?? (flag.setting ? shortMeaning(flag.setting) : "");
  return flag.required ? `${meaning} (required)` : meaning;
}

/** A setting's first sentence, as a flag's meaning. */
function shortMeaning(name: SettingName): string {
  const first = settings[name].meaning.split(/(?<=\.) /)[0]!;
  return first.replace(/\.$/, "");
}

/** Markdown for the terminal: code spans lose their backticks. */
function plain(text: string): string {
  return text.replace(/`([^`]*)`/g, "$1");
}

function wrap(text: string, columns: number, indent: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && indent.length + line.length + 1 + word.length > columns) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(indent + line);
  return lines;
}

/** `head` then the text, wrapped under itself. */
function hang(head: string, text: string): string[] {
  const [first = "", ...rest] = wrap(text, width, " ".repeat(head.length));
  return [head + first.trimStart(), ...rest];
}

const cell = (text: string) => text.replace(/\|/g, "\\|");

/** README "The CLI": the commands table, between its markers. */
export function readmeCommands(): string {
  const rows = commands.map((command) => {
    const own = command.flags.filter((flag) => !flag.setting);
    const settingFlags = command.flags.filter((flag) => flag.setting).map((flag) => `\`--${flag.name}\``);
    const flagText = [
      ...own.map((flag) => `\`--${flag.name}\`: ${flagMeaning(flag)}`),
      ...(settingFlags.length ? [`${settingFlags.join(", ")}: see "Configuration"`] : []),
    ].join("; ");
    return `| \`${usageLine(command)}\` | ${cell(command.description)} Flags: ${cell(flagText)}. |`;
  });
  return [
    "| command | what it does |",
    "|---|---|",
    ...rows,
    "",
    "`casekit --help` lists the commands; `casekit <command> --help` shows the command's flags and every environment variable it reads; `casekit --version` (or `-v`) prints the version. An unknown flag stops the command with its name and a pointer to `--help`.",
  ].join("\n");
}

/** README "Configuration": every setting, between its markers. */
export function readmeSettings(): string {
  const rows = (Object.keys(settings) as SettingName[]).map((name) => {
    const setting: { alias?: string; flag?: string; meaning: string; commands: readonly string[] } = settings[name];
    const variable = `\`${name}\`${setting.alias ? ` (or \`${setting.alias}\`)` : ""}`;
    const flag = setting.flag ? `\`--${setting.flag}\`` : "";
    return `| ${variable} | ${flag} | ${cell(valueText(settings[name].value))} | ${cell(defaultText(name))} | ${setting.commands.join(", ")} | ${cell(setting.meaning)} |`;
  });
  return ["| variable | flag | values | default | used by | meaning |", "|---|---|---|---|---|---|", ...rows].join("\n");
}

export const readmeBlocks = { "cli-commands": readmeCommands, "cli-settings": readmeSettings } as const;

/** The README with each generated block (between `<!-- begin NAME -->` and `<!-- end NAME -->`) written anew. */
export function withGeneratedBlocks(readme: string): string {
  let text = readme;
  for (const [name, render] of Object.entries(readmeBlocks)) {
    const begin = `<!-- begin ${name} (generated by npm run docs:cli from server/commands.ts and server/settings.ts) -->`;
    const end = `<!-- end ${name} -->`;
    const start = text.indexOf(begin);
    const stop = text.indexOf(end);
    if (start < 0 || stop < start) throw new Error(`README.md has no block ${name}: put ${begin} and ${end} where it goes`);
    text = `${text.slice(0, start + begin.length)}\n${render()}\n${text.slice(stop)}`;
  }
  return text;
}
