// Issue 12 items 1, 5(b), 6, 12, 13 (431) and 14 against the real `casekit serve` process, the exact
// server users run (needs `npm run build`). The in-process counterparts: edge.test.ts and
// rate-limit-*.test.ts.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeySecret, rateLimitFloors, signInFailureLimit, unlimitedCeiling } from "../../core/index.js";
import { maxRequestHeadBytes } from "../../server/listen.js";
import { rawRequest } from "../helpers/raw-http.js";
import type { RawAnswer } from "../helpers/raw-http.js";
import { freePort, startServeProcess } from "../helpers/serve-process.js";
import type { ServeProcess } from "../helpers/serve-process.js";

const bin = fileURLToPath(new URL("../../bin/casekit.mjs", import.meta.url));
const bodyLimit = 4096;

function expectProblemAnswer(answer: { status: number; headers: Headers; body: { code?: string } | undefined }, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
}

function wholeHeaders(answer: Response): { limit: number; remaining: number; reset: number } {
  const read = (name: string) => {
    const value = answer.headers.get(name);
    expect(value, name).toMatch(/^\d+$/);
    return Number(value);
  };
  return { limit: read("x-ratelimit-limit"), remaining: read("x-ratelimit-remaining"), reset: read("x-ratelimit-reset") };
}

/** Runs `casekit serve` with these arguments on a fresh database; resolves with its exit code and output. */
function serveOnce(args: string[], timeoutMs = 20_000): Promise<{ code: number | null; output: string; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), "casekit-bind-"));
  const started = Date.now();
  const child = spawn(process.execPath, [bin, "serve", "--database", join(dir, "casekit.db"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const killer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, output, ms: Date.now() - started });
    }),
  );
}

let server: ServeProcess;

beforeAll(async () => {
  server = await startServeProcess({ env: { CASEKIT_BODY_LIMIT: String(bodyLimit), CASEKIT_TRUST_PROXY: "true", CASEKIT_DISPATCHER: "off" } });
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

async function stillServes(): Promise<void> {
  expect((await server.request("/api/v1/health")).status).toBe(200);
  expect(server.alive()).toBe(true);
}

describe("item 1: over-limit bodies never stop the server", () => {
  const endless = { chunks: 100_000, chunkBytes: 1024, everyMs: 1 };
  const json: [string, string] = ["Content-Type", "application/json"];

  it.each([
    ["POST /account/sign-in", "/account/sign-in", false],
    ["POST /api/v1/cases with the key", "/api/v1/cases", true],
    ["POST /api/v1/cases without a key", "/api/v1/cases", false],
    ["POST to an unknown path", "/no-such-path", false],
  ] as const)("%s: an endless chunked body → 413 problem+json, and the server goes on", async (_label, path, keyed) => {
    const headers: [string, string][] = keyed ? [json, ["Authorization", `Bearer ${server.apiKey}`]] : [json];
    const answer: RawAnswer = await rawRequest(server.port, { method: "POST", path, headers, chunked: endless });
    expectProblemAnswer(answer, 413, "payload_too_large");
    expect(answer.closedByServer).toBe(true);
    await stillServes();
  });

  it("uploads cut off halfway, then a normal request succeeds and the process is alive", async () => {
    for (const path of ["/account/sign-in", "/api/v1/cases"]) {
      const answer = await rawRequest(server.port, {
        method: "POST",
        path,
        headers: [
          ["Content-Type", "application/json"],
          ["Authorization", `Bearer ${server.apiKey}`],
        ],
        chunked: { chunks: 1_000, chunkBytes: 256, everyMs: 2 },
        abortAfterChunks: 4,
      });
      expect(answer.status).toBe(0);
    }
    const created = await server.request("/api/v1/cases", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "After the aborts", severity: 2 }) });
    expect(created.status).toBe(200);
    await stillServes();
  });
});

describe("item 1: binding and shutdown", () => {
  it("a busy port fails at once with a clear message and a non-zero exit (no silent move)", async () => {
    const result = await serveOnce(["--port", String(server.port), "--host", "127.0.0.1"]);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(`cannot listen on 127.0.0.1:${server.port}: the port is already in use`);
    expect(result.output).not.toContain("listening on");
    // At once: the start-up's own cost (Node, migrations), no retry or wait for the port.
    expect(result.ms).toBeLessThan(8_000);
  });

  it("a port out of range or not a number stops the start before anything is opened, naming the flag and the variable", async () => {
    for (const port of ["70000", "http"]) {
      const result = await serveOnce(["--port", port, "--host", "127.0.0.1"]);
      expect(result.code).toBe(1);
      expect(result.output).toBe(`casekit serve: --port (CASEKIT_PORT) must be a whole number from 1 to 65535, not "${port}"\n`);
    }
  });

  it("a host that does not resolve, or an address the machine does not have, fails the same way", async () => {
    const port = String(await freePort());
    const unresolvable = await serveOnce(["--port", port, "--host", "no-such-host.invalid"]);
    expect(unresolvable.code).not.toBe(0);
    expect(unresolvable.output).toContain("the host name does not resolve (check --host)");
    const foreign = await serveOnce(["--port", port, "--host", "203.0.113.7"]);
    expect(foreign.code).not.toBe(0);
    expect(foreign.output).toContain("this machine has no such address (check --host)");
  });

  it("SIGTERM drains: idle keep-alive connections do not hold it up, a stuck request is cut at CASEKIT_SHUTDOWN_TIMEOUT", async () => {
    const own = await startServeProcess({ env: { CASEKIT_SHUTDOWN_TIMEOUT: "1", CASEKIT_DISPATCHER: "off" } });
    try {
      expect((await own.request("/api/v1/health")).status).toBe(200); // leaves an idle keep-alive connection
      const stuck = rawRequest(own.port, {
        method: "POST",
        path: "/api/v1/cases",
        headers: [
          ["Content-Type", "application/json"],
          ["Authorization", `Bearer ${own.apiKey}`],
        ],
        chunked: { chunks: 1_000_000, chunkBytes: 1, everyMs: 50 },
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = new Promise<number | null>((resolve) => own.child.once("exit", (code) => resolve(code)));
      const started = Date.now();
      own.child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await stuck).status).toBe(0);
      expect(own.output()).toContain("shutdown deadline reached");
    } finally {
      await own.stop();
    }
  }, 20_000);
});

describe("item 13: request heads over the limit", () => {
  it("a long ?data= list is 431 problem+json with a request id; the documented maximum is served", async () => {
    const value = encodeURIComponent("€".repeat(4096));
    const documented = Array.from({ length: 4 }, () => `data=${value}`).join("&");
    const within = await server.request(`/api/v1/observables?${documented}`);
    expect(within.status).not.toBe(431);
    expect(within.status).toBeLessThan(500);

    const over = await rawRequest(server.port, {
      method: "GET",
      path: `/api/v1/observables?${Array.from({ length: 10 }, () => `data=${value}`).join("&")}`,
      headers: [["Authorization", `Bearer ${server.apiKey}`]],
    });
    expect(over.status).toBe(431);
    expectProblemAnswer(over, 431, "headers_too_large");
    expect(over.body.detail).toContain(String(maxRequestHeadBytes));
    await stillServes();
  });
});

describe("items 12 and 14: every authenticated answer states whole-number limits", () => {
  it("the unlimited key `casekit init` prints carries the ceiling's headers, on success and on error", async () => {
    for (const path of ["/api/v1/health", "/api/v1/cases/case_00000000000000000000000000", "/api/v1/no-such-route"]) {
      const answer = await server.request(path);
      expect(wholeHeaders(answer).limit).toBe(unlimitedCeiling.burst);
    }
  });

  it("a policy that would lock the admin out is 400; `unlimited: {}` leaves the headers whole", async () => {
    const patch = (body: unknown) => server.request("/api/v1/organization/policy", { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const refused = await patch({ rateLimits: { unlimited: { perMinute: 1, perHour: 1 } } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: { message: string }[] }).errors[0]!.message).toContain(`at least ${rateLimitFloors.perMinute}`);
    const empty = await patch({ rateLimits: { unlimited: {} } });
    expect(empty.status).toBe(200);
    expect(wholeHeaders(await server.request("/api/v1/health")).limit).toBe(unlimitedCeiling.burst);
    expect((await patch({ rateLimits: {} })).status).toBe(200);
  });
});

describe("item 6: bad clients behind the same address", () => {
  it("200 bad keys from one address never refuse a valid key from it", async () => {
    const from = "198.51.100.200";
    const codes = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const answer = await server.request("/api/v1/health", { headers: { authorization: `Bearer ${generateKeySecret()}`, "x-forwarded-for": from } });
      codes.add(((await answer.json()) as { code: string }).code);
    }
    expect(codes).toEqual(new Set(["invalid_key", "rate_limited"]));
    expect((await server.request("/api/v1/health", { headers: { "x-forwarded-for": from } })).status).toBe(200);
  });

  it("an outsider's wrong passwords do not keep the admin from signing in at another address", async () => {
    const signIn = (address: string, password: string) =>
      fetch(`${server.origin}/account/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": address },
        body: JSON.stringify({ email: server.email, password }),
      });
    for (let i = 0; i < signInFailureLimit; i++) expect((await signIn("203.0.113.99", "not the password")).status).toBe(401);
    expect((await signIn("203.0.113.99", "not the password")).status).toBe(429);
    expect((await signIn("192.0.2.1", server.password)).status).toBe(200);
  });
});

describe("item 5(b): bulk requests cost their rows", () => {
  it("a basic key's selectAll over 150 tasks spends 1 + 1 units, reported in the answer's headers", async () => {
    const post = async (path: string, body: unknown, key = server.apiKey) => {
      const answer = await server.request(path, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
      expect(answer.status, await answer.clone().text()).toBe(200);
      return answer;
    };
    const caseId = ((await (await post("/api/v1/cases", { title: "Bulk target", severity: 2 })).json()) as { id: string }).id;
    for (let i = 0; i < 150; i++) await post(`/api/v1/cases/${caseId}/tasks`, { title: `Task ${i}` });
    const key = ((await (await post("/api/v1/api-keys", { name: "bulk", tier: "basic", scopes: ["tasks:read", "tasks:write"] })).json()) as { key: string }).key;
    const bulk = await post("/api/v1/bulk/tasks", { options: { selectAll: true, filters: { caseId } }, fields: { title: "Triaged" } }, key);
    expect(((await bulk.clone().json()) as { matched: number }).matched).toBe(150);
    expect(wholeHeaders(bulk)).toMatchObject({ limit: 10, remaining: 10 - 2 });
  }, 30_000);
});
