// `casekit serve`'s structured log (server/host-log.ts): pino lines with level, time and msg, the
// access line's fields, probes left out unless asked, unexpected errors with their stack under
// the request id, and never a key, a query or a body.
import { Writable } from "node:stream";
import fc from "fast-check";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createCaseKitApp } from "../../server/index.js";
import { apiBasePath } from "../../server/route.js";
import { accessLineText, createHostLog } from "../../server/host-log.js";
import type { AccessLogLine } from "../../server/handle.js";
import type { HostLogOptions } from "../../server/host-log.js";
import { bearer, inProcess } from "./http.js";
import { makeWorld, validCase } from "./world.js";

/** A host log writing into an array of parsed lines. */
function capturedLog(options: Partial<HostLogOptions> = {}) {
  const lines: Record<string, unknown>[] = [];
  let text = "";
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString("utf8");
      for (const line of chunk.toString("utf8").split("\n")) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = createHostLog({ level: "info", logProbes: false, destination, ...options });
  return { log, lines, text: () => text };
}

describe("the host log", () => {
  it("writes the access line as JSON with level, ISO time and msg, and nothing the request carried", async () => {
    const w = await makeWorld();
    const { log, lines, text } = capturedLog();
    const client = inProcess(createCaseKitApp(w.kit, { logger: log.access, onUnexpectedError: log.unexpected }));
    const created = await client.send("POST", `${apiBasePath}/cases?source=private-feed`, { headers: bearer(w.adminKey), body: { ...validCase, title: "Confidential title" } });
    await client.send("GET", `${apiBasePath}/cases`, { headers: [["Authorization", "Bearer ck_live_notakey"]] });
    await log.flush();
    expect(lines).toHaveLength(2);
    const [first, second] = lines;
    expect(first).toMatchObject({ level: "info", msg: "request", method: "POST", path: `${apiBasePath}/cases`, status: created.status, requestId: created.headers.get("x-request-id") });
    expect(first!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(first!.keyId).toMatch(/^key_/);
    expect(first!.organizationId).toBe(w.organizationId);
    expect(typeof first!.durationMs).toBe("number");
    expect(first!.route).toBe(`${apiBasePath}/cases`);
    expect(Object.keys(first!).sort()).toEqual(["durationMs", "keyId", "level", "method", "msg", "organizationId", "path", "requestId", "route", "status", "time"]);
    expect(second).toMatchObject({ level: "info", status: 401, code: "invalid_key" });
    expect(text()).not.toContain(w.adminKey);
    expect(text()).not.toMatch(/ck_live|private-feed|Confidential|authorization|bearer/i);
  });

  it("leaves successful probes out unless asked, and keeps failed ones", async () => {
    const w = await makeWorld();
    for (const logProbes of [false, true]) {
      const { log, lines } = capturedLog({ logProbes });
      const client = inProcess(createCaseKitApp(w.kit, { logger: log.access }));
      await client.send("GET", "/livez");
      await client.send("GET", "/readyz");
      await client.send("GET", `${apiBasePath}/health`, { headers: bearer(w.adminKey) });
      await client.send("GET", `${apiBasePath}/health`);
      // A Prometheus scrape (served by casekit serve's metrics route, not this app) counts as a probe.
      for (const status of [200, 401]) log.access({ msg: "request", time: "2026-03-01T12:00:00.000Z", requestId: `req_${status}`, method: "GET", route: "/metrics", path: "/metrics", status, durationMs: 1 });
      await log.flush();
      const logged = lines.map((line) => `${line.path as string} ${line.status as number}`);
      expect(logged).toEqual(
        logProbes
          ? ["/livez 200", "/readyz 200", `${apiBasePath}/health 200`, `${apiBasePath}/health 401`, "/metrics 200", "/metrics 401"]
          : [`${apiBasePath}/health 401`, "/metrics 401"],
      );
    }
  });

  it("logs an unexpected error's message and stack under the request id, and its 500 at level error", async () => {
    const w = await makeWorld();
    const { log, lines } = capturedLog();
    w.kit.cases = {
      ...w.kit.cases,
      list: async () => {
        throw new TypeError("boom in the list");
      },
    };
    const client = inProcess(createCaseKitApp(w.kit, { logger: log.access, onUnexpectedError: log.unexpected }));
    const answer = await client.send("GET", `${apiBasePath}/cases`, { headers: bearer(w.adminKey) });
    expect(answer.status).toBe(500);
    expect(answer.text).not.toContain("boom");
    await log.flush();
    const requestId = answer.headers.get("x-request-id");
    const error = lines.find((line) => line.msg === "unexpected error");
    expect(error).toMatchObject({ level: "error", requestId, error: { type: "TypeError", message: "boom in the list" } });
    expect((error!.error as { stack: string }).stack).toContain("boom in the list");
    expect(lines.find((line) => line.msg === "request")).toMatchObject({ level: "error", status: 500, requestId, errorName: "TypeError", code: "internal_error" });
  });

  it("honours the level: at warn, access lines of successes and 4xx are not written", async () => {
    const w = await makeWorld();
    const { log, lines } = capturedLog({ level: "warn" });
    const client = inProcess(createCaseKitApp(w.kit, { logger: log.access }));
    await client.send("POST", `${apiBasePath}/cases`, { headers: bearer(w.adminKey), body: validCase });
    await client.send("GET", `${apiBasePath}/cases`);
    log.logger.warn("a warning");
    await log.flush();
    expect(lines.map((line) => [line.level, line.msg])).toEqual([["warn", "a warning"]]);
  });

  it("writes an access line exactly as pino wrote it, member for member and in the same order", () => {
    // The reference: this logger's pino settings, with the line's time as pino's timestamp.
    let written = "";
    const destination = { write: (text: string) => void (written = text) };
    const line = fc.record(
      {
        msg: fc.constant("request" as const),
        time: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
        requestId: fc.string(),
        method: fc.string(),
        route: fc.string(),
        path: fc.string({ unit: "binary" }),
        status: fc.integer({ min: 100, max: 599 }),
        durationMs: fc.oneof(
          // What handle.ts writes (whole hundredths of a millisecond), any double, and what JSON cannot hold.
          fc.nat({ max: 1e15 }).map((hundredths) => hundredths / 100),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0),
        ),
        keyId: fc.string(),
        sessionId: fc.string(),
        organizationId: fc.string(),
        code: fc.constantFrom("invalid_key", "not_found", "internal_error") as fc.Arbitrary<NonNullable<AccessLogLine["code"]>>,
        errorName: fc.string({ unit: "grapheme" }),
      },
      { requiredKeys: ["msg", "time", "requestId", "method", "route", "path", "status", "durationMs"] },
    );
    fc.assert(
      fc.property(line, fc.constantFrom("info" as const, "error" as const), (value, level) => {
        const reference = pino({ level: "info", base: null, timestamp: () => `,"time":${JSON.stringify(value.time)}`, formatters: { level: (label) => ({ level: label }) } }, destination);
        const { msg, time: _time, ...fields } = value;
        reference[level](fields, msg);
        expect(accessLineText(level, value)).toBe(written);
      }),
      { numRuns: 2_000 },
    );
  });
});
