// The real `casekit serve` logs through pino: every line on its output is one JSON object with a
// level, the access lines of requests drained on SIGTERM are written before the exit, probes are
// left out, and no key, password or body ever appears.
import { describe, expect, it } from "vitest";
import { startServeProcess } from "../helpers/serve-process.js";

describe("casekit serve's log", () => {
  it("is JSON lines through pino, flushed on SIGTERM, without probes or secrets", async () => {
    const serve = await startServeProcess({ env: { CASEKIT_LOG_LEVEL: "info" } });
    try {
      const created = await serve.request("/api/v1/cases", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Body text that stays out of the log", severity: 2 }),
      });
      expect(created.status).toBe(200);
      await serve.request("/api/v1/health");
      await serve.request("/livez");
      await serve.request("/api/v1/cases", { headers: { authorization: `Bearer ${serve.apiKey.slice(0, -3)}xyz` } });
    } finally {
      await serve.stop();
    }

    const lines = serve
      .output()
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const line of lines) {
      expect(["trace", "debug", "info", "warn", "error", "fatal"]).toContain(line.level);
      expect(typeof line.time).toBe("string");
      expect(typeof line.msg).toBe("string");
    }
    const messages = lines.map((line) => line.msg as string);
    expect(messages[0]).toMatch(/^casekit .* listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(messages).toContain("casekit stopped");
    const access = lines.filter((line) => line.msg === "request").map((line) => `${line.method as string} ${line.path as string} ${line.status as number}`);
    // The readiness poll of the helper and the probes above are not logged; the refused key is.
    expect(access).toEqual(["POST /api/v1/cases 200", "GET /api/v1/cases 401"]);
    const output = serve.output();
    expect(output).not.toContain(serve.apiKey);
    expect(output).not.toContain(serve.apiKey.slice(0, -3));
    expect(output).not.toContain(serve.password);
    expect(output).not.toContain("Body text");
  });
});
