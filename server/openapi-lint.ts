/**
 * Lints the API's OpenAPI document with Redocly's CLI under the repository's redocly.yaml:
 * builds the document in-process, writes it to a temporary file, runs `redocly lint` on it.
 *
 *   npm run openapi:lint
 *
 * test/server/openapi-lint.test.ts runs the same, so `npm test` fails on any lint error.
 * A development tool: nothing of the published package imports it.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildOpenApiDocument } from "./openapi.js";

const repositoryRoot = fileURLToPath(new URL("..", import.meta.url));

export interface LintOutcome {
  /** The CLI's exit code: 0 when there is no error. */
  exitCode: number;
  /** What the CLI printed (stdout then stderr). */
  output: string;
}

export async function lintOpenApiDocument(): Promise<LintOutcome> {
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve("@redocly/cli/package.json")), "bin", "cli.js");
  const directory = await mkdtemp(path.join(tmpdir(), "casekit-openapi-"));
  try {
    const file = path.join(directory, "openapi.json");
    await writeFile(file, JSON.stringify(buildOpenApiDocument(), null, 2));
    const args = [cli, "lint", file, "--config", path.join(repositoryRoot, "redocly.yaml"), "--format", "stylish"];
    return await new Promise<LintOutcome>((resolve, reject) => {
      // REDOCLY_TELEMETRY=off: the CLI must not call home (CI may be air-gapped).
      execFile(process.execPath, args, { cwd: repositoryRoot, env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" } }, (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ exitCode: error ? Number(error.code) : 0, output: `${stdout}${stderr}` });
      });
    });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { exitCode, output } = await lintOpenApiDocument();
  process.stdout.write(output);
  process.exitCode = exitCode;
}
