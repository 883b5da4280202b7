// The container files (Dockerfile, .dockerignore, compose.yaml) and the systemd unit
// (examples/systemd/casekit.service). Where a Docker daemon answers, the image is built and
// looked at; where hadolint is installed, it lints the Dockerfile. Everywhere, the rules that
// matter are checked here: a non-root user, a healthcheck that works against a real `casekit
// serve`, pinned base images, `npm ci`, no remote ADD, and compose and the unit naming only real
// commands, flags, routes and settings (the tables in server/commands.ts and server/settings.ts).
// Needs `npm run build` (it runs bin/casekit.mjs).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commandSpec } from "../../server/commands.js";
import { loadHostConfig } from "../../server/config.js";
import { createCaseKitApp } from "../../server/index.js";
import type { CommandName } from "../../server/settings.js";
import { settings, settingsOf } from "../../server/settings.js";
import { freePort, startServeProcess } from "../helpers/serve-process.js";
import { makeTestKit } from "../helpers/kit.js";

const root = new URL("../..", import.meta.url).pathname;
const read = (file: string) => readFileSync(join(root, file), "utf8");
const { load: parseYaml } = createRequire(import.meta.url)("js-yaml") as { load(text: string): unknown };

/** The Dockerfile's instructions: continuation lines joined, comments left out. */
function instructions(text: string): { keyword: string; args: string }[] {
  const joined = text.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(" ") };
    });
}

const dockerfile = instructions(read("Dockerfile"));
const stages: { keyword: string; args: string }[][] = [];
for (const instruction of dockerfile) {
  if (instruction.keyword === "FROM") stages.push([]);
  stages.at(-1)?.push(instruction);
}
const runtime = stages.at(-1)!;
const of = (stage: typeof runtime, keyword: string) => stage.filter((i) => i.keyword === keyword);

/** The `node -e` script of a healthcheck's exec form. */
function healthScript(test: readonly string[]): string {
  expect(test.slice(0, 3)).toEqual(["CMD", "node", "-e"]);
  return test[3]!;
}
/** As `docker image inspect` shows it: the exec form after `CMD`, led by "CMD". */
const imageHealthcheck = ["CMD", ...(JSON.parse(of(runtime, "HEALTHCHECK")[0]!.args.replace(/^.*?CMD\s+/, "")) as string[])];

/** Every CASEKIT_ setting `casekit serve` and `casekit worker` read: the names loadHostConfig asks the environment for. */
function settingsRead(): Set<string> {
  const asked = new Set<string>();
  const env = new Proxy({ CASEKIT_DATABASE: "postgres://casekit@localhost/casekit", CASEKIT_KEY_HASH_SECRET: "x".repeat(40) } as NodeJS.ProcessEnv, {
    get(target, name) {
      if (typeof name === "string") asked.add(name);
      return target[name as string];
    },
  });
  loadHostConfig({}, env);
  return asked;
}

/** A command's own help (bin/casekit.mjs, as the image runs it); it exits non-zero for a command that does not exist. */
function helpOf(command: string): string {
  return execFileSync(process.execPath, [join(root, "bin", "casekit.mjs"), command, "--help"], { encoding: "utf8" });
}

/**
 * A casekit command line (compose `command`, the unit's ExecStart, the image's CMD) names a real
 * command and only its own flags: in the commands table (server/commands.ts) and in its --help.
 */
function expectRealCommand(args: readonly string[]): void {
  const [command, ...rest] = args;
  const spec = commandSpec(command!);
  expect(spec, `casekit ${command}`).toBeDefined();
  const help = helpOf(command!);
  for (const arg of rest.filter((a) => a.startsWith("--"))) {
    const flag = arg.slice(2).split("=")[0]!;
    expect(spec!.flags.map((f) => f.name), `casekit ${command} ${arg}`).toContain(flag);
    expect(help, arg).toContain(`--${flag}`);
  }
}

/**
 * Every CASEKIT_ variable a file sets for `command`: a row of the settings table (server/settings.ts)
 * that command uses, and one loadHostConfig really reads.
 */
function expectSettingsOf(command: string, names: Iterable<string>): void {
  const read = settingsRead();
  const used: readonly string[] = settingsOf(command as CommandName);
  for (const name of names) {
    expect(Object.keys(settings), name).toContain(name);
    expect(used, `${name} for casekit ${command}`).toContain(name);
    expect(read, name).toContain(name);
  }
}

describe("Dockerfile", () => {
  it("pins every base image by tag, adds nothing from a URL, and installs with npm ci only", () => {
    for (const from of of(dockerfile, "FROM")) {
      const image = from.args.split(/\s+/)[0]!;
      expect(image, from.args).toMatch(/^[a-z0-9./-]+:[A-Za-z0-9._-]+(@sha256:[0-9a-f]{64})?$/);
      expect(image).not.toMatch(/:latest\b/);
    }
    for (const add of of(dockerfile, "ADD")) expect(add.args).not.toMatch(/https?:\/\//);
    const npmRuns = of(dockerfile, "RUN").flatMap((run) => run.args.split(/&&|;/).map((part) => part.trim()).filter((part) => part.startsWith("npm ")));
    expect(npmRuns.length).toBeGreaterThan(0);
    for (const command of npmRuns) expect(command).toMatch(/^npm (ci|rebuild|cache clean)\b/);
    // The runtime installs nothing itself: it copies production dependencies built without dev ones.
    expect(npmRuns.some((command) => /^npm ci\b.*--omit=dev/.test(command))).toBe(true);
  });

  it("runs as an unprivileged user, with a /data volume, the port exposed and casekit serve on every address", () => {
    const users = of(runtime, "USER");
    expect(users).toHaveLength(1);
    expect(users[0]!.args).not.toMatch(/^(root|0)(:|$)/);
    expect(of(runtime, "VOLUME").map((v) => v.args)).toEqual(["/data"]);
    const env = of(runtime, "ENV").map((e) => e.args).join(" ");
    expect(env).toMatch(/CASEKIT_DATABASE=\/data\/casekit\.db\b/);
    const port = /CASEKIT_PORT=(\d+)/.exec(env)?.[1];
    expect(of(runtime, "EXPOSE").map((e) => e.args)).toEqual([port]);
    expect(JSON.parse(of(runtime, "ENTRYPOINT")[0]!.args)).toEqual(["node", "bin/casekit.mjs"]);
    const cmd = JSON.parse(of(runtime, "CMD")[0]!.args) as string[];
    expect(cmd.slice(0, 1)).toEqual(["serve"]);
    expect(cmd.join(" ")).toContain("--host 0.0.0.0");
    expectRealCommand(cmd);
    // Every setting it sets is one `casekit serve` (its CMD) reads.
    expectSettingsOf(cmd[0]!, Array.from(env.matchAll(/(CASEKIT_[A-Z_]+)=/g), ([, name]) => name!));
  });

  it("copies only what exists and what .dockerignore lets through, never a database or a secret", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    for (const pattern of ["node_modules", "data", "*.db", "*.secret", ".env", ".git"]) expect(ignored).toContain(pattern);
    for (const copy of of(dockerfile, "COPY").filter((c) => !c.args.startsWith("--from="))) {
      const sources = copy.args.split(/\s+/).slice(0, -1);
      for (const source of sources) if (source !== ".") expect(existsSync(join(root, source)), source).toBe(true);
    }
  });

  it("has a healthcheck that is ready exactly when casekit serve's /readyz is (run against the real process)", async () => {
    expect(of(runtime, "HEALTHCHECK")).toHaveLength(1);
    const script = healthScript(imageHealthcheck);
    expect(script).toContain("/readyz");
    // The path is a real route that needs no key.
    const { kit } = await makeTestKit();
    expect((await createCaseKitApp(kit).fetch(new Request("http://casekit/readyz"))).status).toBe(200);

    const check = (port: number) => spawnSync(process.execPath, ["-e", script], { env: { ...process.env, CASEKIT_PORT: String(port) }, timeout: 10_000 }).status;
    const serve = await startServeProcess();
    try {
      expect(check(serve.port)).toBe(0);
    } finally {
      await serve.stop();
    }
    expect(check(await freePort())).toBe(1);
  }, 30_000);

  const dockerAnswers = spawnSync("docker", ["info"], { stdio: "ignore", timeout: 20_000 }).status === 0;
  it.skipIf(!dockerAnswers)("builds an image that runs casekit as the node user, with its healthcheck", () => {
    const tag = "casekit:containers-test";
    execFileSync("docker", ["build", "--tag", tag, root], { stdio: "inherit", timeout: 900_000 });
    const version = (JSON.parse(read("package.json")) as { version: string }).version;
    expect(execFileSync("docker", ["run", "--rm", tag, "--version"], { encoding: "utf8" }).trim()).toBe(version);
    const [image] = JSON.parse(execFileSync("docker", ["image", "inspect", tag], { encoding: "utf8" })) as { Config: { User: string; Healthcheck?: { Test: string[] }; Volumes: Record<string, object> } }[];
    expect(image!.Config.User).toBe("node");
    expect(image!.Config.Healthcheck?.Test).toEqual(imageHealthcheck);
    expect(Object.keys(image!.Config.Volumes)).toEqual(["/data"]);
  }, 900_000);

  const hadolint = spawnSync("hadolint", ["--version"], { stdio: "ignore" }).status === 0;
  it.skipIf(!hadolint)("passes hadolint", () => {
    const result = spawnSync("hadolint", [join(root, "Dockerfile")], { encoding: "utf8" });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  deploy?: { replicas?: number };
}

describe("compose.yaml", () => {
  const compose = parseYaml(read("compose.yaml")) as { services: Record<string, ComposeService> };
  const { postgres, api, worker } = compose.services;

  it("runs PostgreSQL, two API replicas without the dispatcher and one worker, all on the one database", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["api", "postgres", "worker"]);
    expect(postgres!.image).toMatch(/^postgres:\d+[\w.-]*$/);
    expect(api!.deploy?.replicas).toBe(2);
    expect(api!.command?.[0]).toBe("serve");
    expect(api!.environment?.CASEKIT_DISPATCHER).toBe("off");
    expect(worker!.command).toEqual(["worker"]);
    expect(worker!.deploy?.replicas ?? 1).toBe(1);
    for (const service of [api!, worker!]) {
      expect(service.build).toBe(".");
      expect(service.environment?.CASEKIT_DATABASE).toMatch(/^postgres:\/\/casekit:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\/casekit$/);
      expect(service.environment?.CASEKIT_KEY_HASH_SECRET).toMatch(/^\$\{CASEKIT_KEY_HASH_SECRET:\?/);
    }
  });

  it("names only real commands, flags and settings", () => {
    for (const service of [api!, worker!]) {
      expectRealCommand(service.command!);
      expectSettingsOf(service.command![0]!, Object.keys(service.environment ?? {}));
    }
  });

  it("starts casekit once PostgreSQL is healthy, and checks the API as the image does", () => {
    expect(postgres!.healthcheck?.test?.slice(0, 2)).toEqual(["CMD", "pg_isready"]);
    for (const service of [api!, worker!]) expect(service.depends_on?.postgres?.condition).toBe("service_healthy");
    expect(healthScript(api!.healthcheck!.test!)).toBe(healthScript(imageHealthcheck));
    // The worker serves no HTTP: the image's /readyz check would always fail there.
    expect(worker!.healthcheck?.disable).toBe(true);
  });
});

describe("examples/systemd/casekit.service", () => {
  const unit = new Map<string, string[]>();
  let section = "";
  for (const line of read("examples/systemd/casekit.service").split("\n").map((l) => l.trim())) {
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const [key, ...value] = line.split("=");
    const name = `${section}.${key}`;
    unit.set(name, [...(unit.get(name) ?? []), value.join("=")]);
  }
  const one = (name: string) => unit.get(name)?.at(-1);

  it("is hardened: its own unprivileged user, a read-only system, a state directory, no new privileges", () => {
    expect(one("Service.DynamicUser") === "yes" || (one("Service.User") ?? "root") !== "root").toBe(true);
    expect(one("Service.ProtectSystem")).toBe("strict");
    expect(one("Service.NoNewPrivileges")).toBe("yes");
    expect(one("Service.StateDirectory")).toBe("casekit");
    expect(one("Service.ProtectHome")).toBe("yes");
    expect(one("Service.EnvironmentFile")).toMatch(/^-?\/etc\/casekit\//);
    // V8 compiles code at run time: MemoryDenyWriteExecute would kill Node.
    expect(unit.has("Service.MemoryDenyWriteExecute")).toBe(false);
  });

  it("runs a real command on a database in its state directory, and waits longer than the drain deadline to stop", () => {
    const [binary, ...args] = one("Service.ExecStart")!.split(/\s+/);
    expect(binary).toMatch(/\/casekit$/);
    expectRealCommand(args);
    const environment = unit.get("Service.Environment") ?? [];
    expect(environment).toContain("CASEKIT_DATABASE=/var/lib/casekit/casekit.db");
    expectSettingsOf(
      args[0]!,
      environment.map((setting) => setting.split("=")[0]!).filter((name) => name.startsWith("CASEKIT_")),
    );
    const drain = loadHostConfig({ database: "postgres://casekit@localhost/casekit" }, { CASEKIT_KEY_HASH_SECRET: "x".repeat(40) }).shutdownTimeoutMs / 1000;
    expect(Number(one("Service.TimeoutStopSec"))).toBeGreaterThan(drain);
  });
});
