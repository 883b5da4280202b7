// The real `casekit serve` logs through pino: every line on its output is one JSON object with a
// level, the access lines of requests drained on SIGTERM are written before the exit, probes are
// left out, and no key, password or body ever appears.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { startServeProcess } from "../helpers/serve-process.js";
import type { ServeProcess } from "../helpers/serve-process.js";

/** The process's output as the JSON log lines it must consist of (a line that is not JSON throws). */
function logLines(serve: ServeProcess): Record<string, unknown>[] {
  return serve
    .output()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("casekit serve's log", () => {
  it("is JSON lines through pino, flushed on SIGTERM, without probes or secrets", async () => {
    const serve = await startServeProcess({ env: { CASEKIT_LOG_LEVEL: "info" } });
    let createdAnswer: Response | undefined;
    try {
      const created = await serve.request("/api/v1/cases", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Body text that stays out of the log", severity: 2 }),
      });
      expect(created.status).toBe(200);
      createdAnswer = created;
      await serve.request("/api/v1/health");
      await serve.request("/livez");
      await serve.request("/api/v1/cases", { headers: { authorization: `Bearer ${serve.apiKey.slice(0, -3)}xyz` } });
    } finally {
      await serve.stop();
    }

    const lines = logLines(serve);
    for (const line of lines) {
      expect(["trace", "debug", "info", "warn", "error", "fatal"]).toContain(line.level);
      expect(typeof line.time).toBe("string");
      expect(typeof line.msg).toBe("string");
    }
    const messages = lines.map((line) => line.msg as string);
    expect(messages[0]).toMatch(/^casekit .* listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    // Start-up: where it listens and on which kind of database (the path, never a password).
    expect(lines[0]).toMatchObject({ level: "info", databaseKind: "sqlite", database: serve.database, address: { address: "127.0.0.1", port: serve.port }, dispatcher: "on" });
    // Shutdown: why, and that every request finished before the deadline.
    expect(lines.find((line) => line.msg === "casekit stopped")).toMatchObject({ level: "info", signal: "SIGTERM", drained: true, cut: 0 });
    const access = lines.filter((line) => line.msg === "request").map((line) => `${line.method as string} ${line.path as string} ${line.status as number}`);
    const [createdLine] = lines.filter((line) => line.msg === "request");
    expect(createdLine).toMatchObject({ route: "/api/v1/cases", requestId: createdAnswer!.headers.get("x-request-id"), organizationId: serve.organizationId });
    expect(createdLine!.keyId).toMatch(/^key_/);
    expect(typeof createdLine!.durationMs).toBe("number");
    // The readiness poll of the helper and the probes above are not logged; the refused key is.
    expect(access).toEqual(["POST /api/v1/cases 200", "GET /api/v1/cases 401"]);
    const output = serve.output();
    expect(output).not.toContain(serve.apiKey);
    expect(output).not.toContain(serve.apiKey.slice(0, -3));
    expect(output).not.toContain(serve.password);
    expect(output).not.toContain("Body text");
  });

  it("logs a 500's message and stack under the request id the client was given", async () => {
    const serve = await startServeProcess();
    let requestId: string | null;
    try {
      // Pull the table from under the running server: its next read of cases fails unexpectedly.
      const db = new Database(serve.database);
      db.exec("ALTER TABLE cases RENAME TO cases_moved_away");
      db.close();
      const failed = await serve.request("/api/v1/cases");
      expect(failed.status).toBe(500);
      const problem = (await failed.json()) as { code: string; detail?: string };
      expect(problem.code).toBe("internal_error");
      expect(JSON.stringify(problem)).not.toMatch(/cases_moved_away|no such table|at /);
      requestId = failed.headers.get("x-request-id");
      expect(requestId).toMatch(/^req_/);
    } finally {
      await serve.stop();
    }
    const lines = logLines(serve);
    const error = lines.find((line) => line.msg === "unexpected error");
    expect(error).toMatchObject({ level: "error", requestId, error: { message: "no such table: cases" } });
    const { stack } = error!.error as { stack: string };
    expect(stack).toContain("no such table: cases");
    expect(stack.split("\n").length).toBeGreaterThan(2);
    expect(lines.find((line) => line.msg === "request" && line.requestId === requestId)).toMatchObject({ level: "error", status: 500, route: "/api/v1/cases", code: "internal_error" });
  });

  it("traces with CASEKIT_OTEL=true: @opentelemetry/api loads from the installed package, and without an SDK answers are unchanged", async () => {
    const serve = await startServeProcess({ env: { CASEKIT_OTEL: "true" } });
    try {
      expect((await serve.request("/api/v1/cases")).status).toBe(200);
    } finally {
      await serve.stop();
    }
    const lines = logLines(serve);
    expect(lines[0]).toMatchObject({ tracing: "opentelemetry" });
    expect(lines.filter((line) => line.level === "warn")).toEqual([]);
  });
});
