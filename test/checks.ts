/**
 * The checks `npm test` runs before vitest (type-check, lint, build), side by side rather than one
 * after the other: they share nothing (type-checking reads no built file, lint ignores dist/, the
 * build writes only dist/), and one after the other they leave a core idle for half their time.
 * Each script's output is printed whole when it ends, so outputs never interleave; the exit code
 * is 1 if any of them failed.
 *
 *   node --import tsx test/checks.ts typecheck lint build
 */
import { spawn } from "node:child_process";

interface Outcome {
  script: string;
  ok: boolean;
}

function run(script: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], { stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" });
    const output: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    let settled = false;
    const done = (ok: boolean, status: string) => {
      if (settled) return;
      settled = true;
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n> ${script}: ${status} (${seconds} s)\n`);
      process.stdout.write(Buffer.concat(output));
      resolve({ script, ok });
    };
    child.once("error", (error) => done(false, `could not start: ${error.message}`));
    child.once("close", (code, signal) => done(code === 0, code === 0 ? "ok" : `failed (${signal ?? `exit ${code}`})`));
  });
}

const outcomes = await Promise.all(process.argv.slice(2).map(run));
const failed = outcomes.filter((outcome) => !outcome.ok).map((outcome) => outcome.script);
if (failed.length > 0) {
  process.stdout.write(`\nFailed: ${failed.join(", ")}\n`);
  process.exitCode = 1;
}
