// The real `casekit serve` process, as users run it: `node bin/casekit.mjs serve` on a SQLite file.
// Needs the built package (`npm run build`; the README's test command builds before vitest runs).
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(packageRoot, "bin", "casekit.mjs");

export interface ServeProcess {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  port: number;
  /** The SQLite file the server runs on. */
  database: string;
  /** The admin key and password `casekit init` printed for the organization. */
  apiKey: string;
  password: string;
  email: string;
  organizationId: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** True while the process has not exited. */
  alive(): boolean;
  /** `fetch` against the server with the admin key unless `headers` names another credential. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** SIGTERM, wait for the exit, remove the database folder (unless `keepDatabase`: a restart follows). */
  stop(options?: { keepDatabase?: boolean }): Promise<void>;
}

/** A port nobody listens on right now (the kernel picks it). */
export async function freePort(): Promise<number> {
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

/**
 * Initialises an organization in a fresh SQLite file and starts `casekit serve` on it, resolving
 * once `/livez` answers. `env` is added to the process's environment (e.g. CASEKIT_BODY_LIMIT).
 */
export async function startServeProcess(
  options: { env?: Record<string, string>; args?: string[]; restart?: Pick<ServeProcess, "database" | "apiKey" | "password" | "email" | "organizationId"> } = {},
): Promise<ServeProcess> {
  if (!existsSync(join(packageRoot, "dist", "server", "cli.js"))) throw new Error("Build the package first: npm run build");
  // A restart serves the database a stopped process kept, with the organization it was initialised with.
  const dir = options.restart ? dirname(options.restart.database) : mkdtempSync(join(tmpdir(), "casekit-serve-"));
  const database = join(dir, "casekit.db");
  const env = { ...process.env, CASEKIT_LOG_LEVEL: process.env.CASEKIT_LOG_LEVEL ?? "info", ...options.env };
  let created: { apiKey: string; password: string; email: string; organizationId: string };
  if (options.restart) created = options.restart;
  else {
    const init = spawnSync(process.execPath, [bin, "init", "--org", "Process SOC", "--email", "admin@process.test", "--database", database, "--json"], {
      env,
      encoding: "utf8",
    });
    if (init.status !== 0) throw new Error(`casekit init failed: ${init.stderr}${init.stdout}`);
    created = JSON.parse(init.stdout.trim().split("\n").at(-1)!) as { apiKey: string; password: string; email: string; organizationId: string };
  }

  const port = await freePort();
  const child = spawn(process.execPath, [bin, "serve", "--database", database, "--port", String(port), "--host", "127.0.0.1", ...(options.args ?? [])], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));

  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited) throw new Error(`casekit serve exited before it was ready:\n${output}`);
    try {
      if ((await fetch(`${origin}/livez`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`casekit serve was not ready within 20 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  return {
    origin,
    port,
    database,
    apiKey: created.apiKey,
    password: created.password,
    email: created.email,
    organizationId: created.organizationId,
    child,
    output: () => output,
    alive: () => !exited,
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("authorization") && !headers.has("x-api-key")) headers.set("authorization", `Bearer ${created.apiKey}`);
      return fetch(origin + path, { ...init, headers });
    },
    async stop(stopOptions = {}) {
      if (!exited) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exit;
        clearTimeout(killer);
      }
      if (!stopOptions.keepDatabase) rmSync(dir, { recursive: true, force: true });
    },
  };
}
