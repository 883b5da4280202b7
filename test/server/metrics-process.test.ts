// `GET /metrics` of the real `casekit serve` process (server/metrics.ts; needs `npm run build`):
// Prometheus text with the SQLite WAL size, and who may read it, with and without a token.
import { statSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServeProcess } from "../helpers/serve-process.js";
import type { ServeProcess } from "../helpers/serve-process.js";

/** An address of this machine that is not loopback, to connect from somewhere else than 127.0.0.1. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((address) => address !== undefined && address.family === "IPv4" && !address.internal)?.address;

const token = "metrics-token-0123456789abcdef";

async function expectProblem(answer: Response, status: number, code: string): Promise<void> {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
  expect(((await answer.json()) as { code: string }).code).toBe(code);
}

/** The value of an unlabelled sample in Prometheus text. */
function sample(text: string, name: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe("GET /metrics without a token: local clients only", () => {
  let server: ServeProcess;
  beforeAll(async () => {
    // Every address, so the test can also connect from a non-loopback one.
    server = await startServeProcess({ args: ["--host", "0.0.0.0"] });
  }, 30_000);
  afterAll(() => server?.stop());

  it("answers Prometheus text: the WAL file's size as it is on disk, and the process's default metrics", async () => {
    const created = await server.request("/api/v1/cases", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "WAL", severity: 2 }) });
    expect(created.ok).toBe(true);
    for (let read = 0; read < 2; read++) expect((await server.request("/api/v1/cases?limit=5")).ok).toBe(true);
    const answer = await fetch(`${server.origin}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const text = await answer.text();
    expect(text).toContain("# TYPE casekit_sqlite_wal_bytes gauge");
    const wal = sample(text, "casekit_sqlite_wal_bytes");
    expect(wal).toBeGreaterThan(0);
    // No checkpoint truncates a WAL this small (64 MiB limit): the size on disk is the one reported.
    expect(wal).toBe(statSync(`${server.database}-wal`).size);
    for (const name of ["process_cpu_user_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes"]) {
      expect(sample(text, name), name).toBeGreaterThanOrEqual(0);
    }
    // The request families by route template, the backlog read on scrape, SQLite's readers.
    expect(sample(text, 'casekit_http_requests_total{method="POST",route="/api/v1/cases",status="200"}')).toBe(1);
    expect(sample(text, 'casekit_http_request_duration_seconds_count{method="POST",route="/api/v1/cases",status="200"}')).toBe(1);
    expect(text).toContain("# TYPE casekit_rate_limit_refusals_total counter");
    for (const outcome of ["delivered", "retry", "failed", "gone"]) expect(sample(text, `casekit_webhook_attempts_total{outcome="${outcome}"}`)).toBe(0);
    expect(sample(text, "casekit_webhook_pending_deliveries")).toBe(0);
    expect(sample(text, "casekit_outbox_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'casekit_sqlite_reader_connections{state="open"}')).toBeGreaterThan(0);
    expect(sample(text, 'casekit_sqlite_reader_connections{state="busy"}')).toBeGreaterThanOrEqual(0);
    // The case listed twice is kept parsed beside its text.
    expect(sample(text, "casekit_sqlite_parsed_records")).toBeGreaterThanOrEqual(1);
    expect(sample(text, "casekit_sqlite_parsed_record_chars")).toBeGreaterThan(100);
    expect(text).not.toContain("casekit_postgres_pool");
    // A successful scrape is a probe: not logged (CASEKIT_LOG_PROBES logs it), unlike the create
    // before it, whose line shows the log has been written up to here.
    await vi.waitFor(() => expect(server.output()).toMatch(/"path":"\/api\/v1\/cases","status":200/), { timeout: 5_000 });
    expect(server.output()).not.toMatch(/"path":"\/metrics","status":200/);
  });

  it("is not under /api/v1", async () => {
    await expectProblem(await server.request("/api/v1/metrics"), 404, "route_not_found");
  });

  it("answers a request that came through a proxy (a forwarding header) as an unknown path, even from loopback", async () => {
    for (const header of ["x-forwarded-for", "forwarded", "x-real-ip"]) {
      await expectProblem(await fetch(`${server.origin}/metrics`, { headers: { [header]: "203.0.113.9" } }), 404, "route_not_found");
    }
    // A refused scrape is logged.
    await vi.waitFor(() => expect(server.output()).toMatch(/"path":"\/metrics","status":404/), { timeout: 5_000 });
  });

  it.skipIf(external === undefined)("answers a client on another address as an unknown path", async () => {
    await expectProblem(await fetch(`http://${external}:${server.port}/metrics`), 404, "route_not_found");
    // The same client reaches the API: only /metrics is refused.
    expect((await fetch(`http://${external}:${server.port}/livez`)).status).toBe(200);
  });
});

describe("GET /metrics with CASEKIT_METRICS_TOKEN: the bearer of the token only", () => {
  let server: ServeProcess;
  beforeAll(async () => {
    // This host also keeps no read record parsed (the other one keeps them by default).
    server = await startServeProcess({ args: ["--host", "0.0.0.0"], env: { CASEKIT_METRICS_TOKEN: token, CASEKIT_SQLITE_PARSED_RECORDS: "0" } });
  }, 30_000);
  afterAll(() => server?.stop());

  it("refuses no token, a wrong token and an API key with 401 problem+json, even from loopback", async () => {
    const missing = await fetch(`${server.origin}/metrics`);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    await expectProblem(missing, 401, "missing_credentials");
    await expectProblem(await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${token}x` } }), 401, "invalid_key");
    await expectProblem(await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${server.apiKey}` } }), 401, "invalid_key");
    await expectProblem(await fetch(`${server.origin}/metrics`, { headers: { authorization: `Basic ${token}` } }), 401, "missing_credentials");
  });

  it("answers the token's bearer, from loopback and from elsewhere", async () => {
    const local = await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(local.status).toBe(200);
    expect(sample(await local.text(), "casekit_sqlite_wal_bytes")).toBeGreaterThanOrEqual(0);
    if (external !== undefined) {
      const remote = await fetch(`http://${external}:${server.port}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(remote.status).toBe(200);
    }
  });

  it("keeps no read record parsed with CASEKIT_SQLITE_PARSED_RECORDS=0", async () => {
    expect((await server.request("/api/v1/cases", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "Not kept", severity: 2 }) })).ok).toBe(true);
    for (let read = 0; read < 3; read++) expect((await server.request("/api/v1/cases?limit=5")).ok).toBe(true);
    const text = await (await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(sample(text, "casekit_sqlite_parsed_records")).toBe(0);
    expect(sample(text, "casekit_sqlite_parsed_record_chars")).toBe(0);
  });
});
