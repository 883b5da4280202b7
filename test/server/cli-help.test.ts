// The CLI explains itself from one table (issue 15, item 4): every command's --help, the overview,
// the README's generated blocks, and a settings table no CASEKIT_* variable can bypass.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../server/cli.js";
import { usageLine, withGeneratedBlocks } from "../../server/cli-help.js";
import { commands } from "../../server/commands.js";
import { loadHostConfig } from "../../server/config.js";
import type { SettingName } from "../../server/settings.js";
import { rawSetting, settings, settingsOf } from "../../server/settings.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const names = Object.keys(settings) as SettingName[];

async function run(argv: string[]) {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await main(argv, { log: (line) => lines.push(line), error: (line) => errors.push(line) });
  return { code, stdout: lines.join("\n"), stderr: errors.join("\n") };
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(entry) ? [path] : [];
  });
}

describe("the README's CLI blocks", () => {
  it("are exactly what npm run docs:cli writes from the tables", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    // A failure here means README.md and server/commands.ts or server/settings.ts drifted: run `npm run docs:cli`.
    expect(withGeneratedBlocks(readme)).toBe(readme);
    for (const name of names) expect(readme).toContain(`| \`${name}\``);
    for (const command of commands) expect(readme).toContain(usageLine(command));
  });
});

describe("the settings table", () => {
  it("holds every CASEKIT_* name the host and the command read, and nothing they do not", () => {
    const files = [...sourceFiles(join(root, "server")), ...sourceFiles(join(root, "bin"))];
    const tableFiles = new Set(["settings.ts", "commands.ts", "cli-help.ts"].map((f) => join(root, "server", f)));
    const used = new Set<string>();
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const [name] of text.matchAll(/CASEKIT_[A-Z0-9_]+/g)) {
        // The shell variable `init` tells users to export for their curl: casekit never reads it.
        if (name === "CASEKIT_KEY") continue;
        expect(names as string[], `${name} in ${file}`).toContain(name);
        if (!tableFiles.has(file)) used.add(name);
      }
      // A setting is read through the table (rawSetting, integerSetting, choiceSetting), never from the environment directly.
      if (!tableFiles.has(file)) expect(text, file).not.toMatch(/env(\.|\[["'`])(CASEKIT_|PORT\b|DATABASE_URL\b)/);
    }
    for (const name of names) expect(used, `${name} is in the table but read nowhere`).toContain(name);
  });

  it("gives every setting a meaning and commands that exist, and every default passes its own check", () => {
    const commandNames = commands.map((c) => c.name) as string[];
    for (const name of names) {
      const setting: { meaning: string; commands: readonly string[]; default?: string; defaultText?: string } = settings[name];
      expect(setting.meaning.length, name).toBeGreaterThan(10);
      expect(setting.commands.length, name).toBeGreaterThan(0);
      for (const command of setting.commands) expect(commandNames).toContain(command);
      expect(setting.default !== undefined || setting.defaultText !== undefined, name).toBe(true);
    }
    const config = loadHostConfig({ database: ":memory:" }, { CASEKIT_KEY_HASH_SECRET: "x".repeat(32) });
    expect(config).toMatchObject({ port: Number(settings.CASEKIT_PORT.default), host: settings.CASEKIT_HOST.default, bodyLimitBytes: Number(settings.CASEKIT_BODY_LIMIT.default) });
  });

  it("links each setting's flag to a command flag that names it back", () => {
    for (const command of commands) {
      for (const flag of command.flags.filter((f) => f.setting)) {
        expect((settings[flag.setting!] as { flag?: string }).flag).toBe(flag.name);
        expect(settingsOf(command.name)).toContain(flag.setting);
      }
    }
  });

  it("reads a flag over its variable over its alias over the default", () => {
    expect(rawSetting("CASEKIT_PORT", {})).toBe("3000");
    expect(rawSetting("CASEKIT_PORT", { PORT: "81" })).toBe("81");
    expect(rawSetting("CASEKIT_PORT", { PORT: "81", CASEKIT_PORT: "82" })).toBe("82");
    expect(rawSetting("CASEKIT_PORT", { PORT: "81", CASEKIT_PORT: "82" }, { port: "83" })).toBe("83");
  });

  it("names the flag and the variable when a value is out of range", () => {
    expect(() => loadHostConfig({ database: ":memory:", port: "70000" }, { CASEKIT_KEY_HASH_SECRET: "x".repeat(32) })).toThrow(
      '--port (CASEKIT_PORT) must be a whole number from 1 to 65535, not "70000"',
    );
    expect(() => loadHostConfig({ database: "data/x.db", schema: "tenant_a" }, { CASEKIT_KEY_HASH_SECRET: "x".repeat(32) })).toThrow(/names a PostgreSQL schema/);
  });
});

describe("casekit --help, --version and <command> --help", () => {
  it.each(commands.map((c) => [c.name, c] as const))("casekit %s --help shows its usage, every flag and every variable it uses", async (name, command) => {
    for (const argv of [[name, "--help"], [name, "-h"], ["help", name]]) {
      const { code, stdout, stderr } = await run(argv);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(stdout).toContain(`Usage: ${usageLine(command)}`);
      for (const flag of command.flags) expect(stdout).toContain(`--${flag.name}`);
      for (const setting of settingsOf(name)) expect(stdout).toContain(setting);
      for (const other of names.filter((n) => !settingsOf(name).includes(n))) expect(stdout).not.toMatch(new RegExp(`^  ${other}\\b`, "m"));
    }
  });

  it("casekit --help lists every command; without a command it is the same on stderr with exit 1", async () => {
    for (const argv of [["--help"], ["-h"], ["help"]]) {
      const { code, stdout } = await run(argv);
      expect(code).toBe(0);
      for (const command of commands) expect(stdout).toContain(`  ${command.name} `);
      expect(stdout).toContain("casekit <command> --help");
    }
    const bare = await run([]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("casekit <command> --help");
  });

  it("--version and -v print the package's version", async () => {
    for (const flag of ["--version", "-v"]) expect(await run([flag])).toEqual({ code: 0, stdout: version, stderr: "" });
  });

  it("an unknown command, an unknown flag, a flag without its value and a stray argument each say so, with the way to --help", async () => {
    const unknown = await run(["srve"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown command "srve"');
    expect(unknown.stderr).toContain("casekit --help");

    for (const command of commands) {
      const { code, stderr } = await run([command.name, "--no-such-flag"]);
      expect(code).toBe(1);
      expect(stderr).toBe(`casekit ${command.name}: unknown flag --no-such-flag (see casekit ${command.name} --help)`);
    }
    expect((await run(["serve", "--prot", "3001"])).stderr).toBe("casekit serve: unknown flag --prot; did you mean --port? (see casekit serve --help)");
    expect((await run(["backup", "--to"])).stderr).toBe("casekit backup: --to needs a value (see casekit backup --help)");
    expect((await run(["copy", "--json=yes"])).stderr).toBe("casekit copy: --json takes no value (see casekit copy --help)");
    expect((await run(["migrate", "now"])).stderr).toMatch(/^casekit migrate: unexpected argument "now".*\(see casekit migrate --help\)$/);
    expect((await run(["init", "--org", "X"])).stderr).toBe("casekit init: --email <email> is required (see casekit init --help)");
    expect((await run(["copy"])).stderr).toBe("casekit copy: --from <sqlite file> and --to <postgres url> are required (see casekit copy --help)");
  });
});
