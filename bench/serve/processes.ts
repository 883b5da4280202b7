/**
 * The processes a run measures, each a separate `node` (the same binary as the harness): the real
 * `casekit serve` from dist/ on a SQLite file of its own, and the bare h3 endpoint. Their output
 * goes to a log file beside the database (a file, as a deployment would log; a pipe would make the
 * harness read every access-log line while it measures).
 */
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchScript } from "./scripts.js";
import { scriptPath } from "./scripts.js";

export const packageRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(packageRoot, "bin", "casekit.mjs");

/** Environment every casekit process of the bench gets (on top of the harness's own). */
export const benchEnv: Record<string, string> = {
  // Far above anything a run sends: the limiter decides on every request and never refuses.
  CASEKIT_RATE_LIMITS: JSON.stringify({ unlimited: { perMinute: 1_000_000_000, perHour: 1_000_000_000, burst: 1_000_000_000 } }),
  CASEKIT_BULK_MAX_ROWS: "1000000",
  CASEKIT_WEBHOOK_ALLOWLIST: "127.0.0.1",
  CASEKIT_LOG_LEVEL: "info",
};

export interface Organization {
  organizationId: string;
  userId: string;
  apiKey: string;
}

export interface Running {
  name: string;
  pid: number;
  origin: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `casekit init` on `database` (created and migrated if new): one more organization and its admin key. */
export function initOrganization(database: string, name: string, env: Record<string, string> = {}): Organization {
  const result = spawnSync(process.execPath, [bin, "init", "--org", name, "--email", `admin@${name.toLowerCase().replace(/\W+/g, "-")}.test`, "--database", database, "--json"], {
    env: { ...process.env, ...benchEnv, ...env },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`casekit init failed: ${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as Organization;
}

export interface ServeOptions {
  env?: Record<string, string>;
  /** Arguments for node before the script (a preloaded module). */
  nodeArgs?: string[];
  /** Told the pid as soon as the process exists, before it is ready. */
  onSpawn?: (pid: number) => void;
  /** Where its output goes; beside the database file by default. */
  logFile?: string;
}

/** `casekit serve` on `database` (a SQLite file or a postgres:// URL), resolved once /livez answers. */
export async function startServe(name: string, database: string, options: ServeOptions = {}): Promise<Running> {
  const port = await freePort();
  const args = [...(options.nodeArgs ?? []), bin, "serve", "--database", database, "--port", String(port), "--host", "127.0.0.1"];
  const logFile = options.logFile ?? `${database}.${name.replace(/\W+/g, "-")}.log`;
  return start(name, args, logFile, { ...benchEnv, ...options.env }, `http://127.0.0.1:${port}`, "/livez", options.onSpawn);
}

/** A script of the bench, built (scripts.ts), as its own process, given its port as the first argument. */
export async function startScript(name: string, script: BenchScript, logFile: string, args: string[] = [], env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  return start(name, [scriptPath(script), String(port), ...args], logFile, env, `http://127.0.0.1:${port}`, "/livez");
}

async function start(name: string, args: string[], logFile: string, env: Record<string, string>, origin: string, ready: string, onSpawn?: (pid: number) => void): Promise<Running> {
  const log = openSync(logFile, "a");
  const child = spawn(process.execPath, args, { cwd: packageRoot, env: { ...process.env, ...env }, stdio: ["ignore", log, log] });
  closeSync(log);
  onSpawn?.(child.pid!);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${name} exited before it was ready:\n${tail(logFile)}`);
    try {
      if ((await fetch(origin + ready)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${name} was not ready within 60 s:\n${tail(logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name,
    pid: child.pid!,
    origin,
    child,
    async stop() {
      if (exited) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exit;
      clearTimeout(killer);
    },
  };
}

function tail(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8").slice(-4000) : "";
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `npm run build`, so that dist/ (what `casekit serve` runs) is the tree being measured. */
export function build(): void {
  const result = spawnSync("npm", ["run", "build"], { cwd: packageRoot, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
}
