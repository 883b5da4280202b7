// Items 5 (a, the bulk maximum of b, c) and 7 of issue 12 against the real `casekit serve` process
// (needs `npm run build`): one client's large bulk does not stall another organization's
// requests, a bulk above CASEKIT_BULK_MAX_ROWS is refused whole, the WAL is brought back under
// CASEKIT_SQLITE_WAL_LIMIT while the server runs, and a closed record stays closed to an analyst
// who may not reopen it.
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createIdGenerator, systemClock } from "../../core/index.js";
import { startServeProcess } from "../helpers/serve-process.js";
import type { ServeProcess } from "../helpers/serve-process.js";
import { taskRecord } from "../conformance/task-record.js";

const bin = join(fileURLToPath(new URL("../..", import.meta.url)), "bin", "casekit.mjs");
/** The deployment's maximum here; the stalling bulk touches exactly this many tasks. */
const maxRows = 25_000;
/** CASEKIT_SQLITE_WAL_LIMIT here: 1 MiB, far below what the bulk writes. */
const walLimit = 1024 * 1024;

interface Reply {
  status: number;
  type: string | null;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
}

describe("casekit serve: one client cannot stall the rest; closed means closed", () => {
  let p: ServeProcess;
  let bigCase: string;
  let smallCase: string;
  /** The admin key of a second organization, made with `casekit init` on the running server's file. */
  let otherKey: string;

  async function call(path: string, options: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    const response = await p.request(path, { method: options.method ?? "GET", headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
    const text = await response.text();
    return { status: response.status, type: response.headers.get("content-type"), body: text ? JSON.parse(text) : undefined };
  }

  function expectProblem(reply: Reply, status: number, code: string): void {
    expect({ status: reply.status, code: reply.body?.code }, JSON.stringify(reply.body)).toEqual({ status, code });
    expect(reply.type).toBe("application/problem+json");
  }

  beforeAll(async () => {
    p = await startServeProcess({ env: { CASEKIT_BULK_MAX_ROWS: String(maxRows), CASEKIT_SQLITE_WAL_LIMIT: String(walLimit) } });
    bigCase = (await call("/api/v1/cases", { method: "POST", body: { title: "Mass phishing", severity: 3 } })).body.id;
    smallCase = (await call("/api/v1/cases", { method: "POST", body: { title: "One more", severity: 2 } })).body.id;
    // maxRows tasks on one case and one on another, written straight into the server's file from
    // this process (WAL: the server keeps running), which is much faster than 25 000 requests.
    const storage = createSqliteStorage({ path: p.database, checkpoints: "inline" });
    const ids = createIdGenerator(systemClock);
    const at = new Date().toISOString();
    await storage.transaction(async (tx) => {
      for (let i = 0; i < maxRows; i++) await tx.tasks.insert(taskRecord(ids.next("task"), p.organizationId, bigCase, at, { title: `Reply to ${i}`, tlp: 1, order: i }));
      await tx.tasks.insert(taskRecord(ids.next("task"), p.organizationId, smallCase, at, { title: "Block sender", tlp: 1 }));
    });
    await storage.close();
    const init = spawnSync(process.execPath, [bin, "init", "--org", "Other SOC", "--email", "admin@other.test", "--database", p.database, "--json"], { encoding: "utf8" });
    expect(init.status, init.stderr).toBe(0);
    otherKey = (JSON.parse(init.stdout.trim().split("\n").at(-1)!) as { apiKey: string }).apiKey;
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
  });

  it("5(a): while a selectAll bulk over 25 000 tasks runs, another organization's GET /health, /readyz and a list keep answering", async () => {
    // Warm the other key up, so the requests below measure nothing but waiting.
    expect((await call("/api/v1/health", { key: otherKey })).status).toBe(200);
    let bulkAnswered = false;
    const bulk = call("/api/v1/bulk/tasks", { method: "POST", body: { options: { selectAll: true, filters: { caseId: [bigCase] } }, fields: { title: "Reported" } } }).then((reply) => {
      bulkAnswered = true;
      return reply;
    });
    // One request after another for as long as the bulk runs. Before the fix the bulk held the
    // event loop from its first page to its commit: nothing sent after it began was answered
    // before it, whatever its length. Counting answers, not milliseconds, keeps this stable.
    const probes = [() => call("/api/v1/health", { key: otherKey }), () => p.request("/readyz"), () => call("/api/v1/cases", { key: otherKey })];
    const answeredBefore: number[] = [];
    for (let i = 0; !bulkAnswered; i++) {
      const reply = await probes[i % probes.length]!();
      expect(reply.status).toBe(200);
      if (!bulkAnswered) answeredBefore.push(i);
    }
    const done = await bulk;
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ matched: maxRows, updated: maxRows });
    expect(answeredBefore.length).toBeGreaterThanOrEqual(10);
    expect(p.alive()).toBe(true);
  }, 120_000);

  it("5(c): after the bulk filled the WAL, and under sustained writes and reads, the WAL is cut back under CASEKIT_SQLITE_WAL_LIMIT", async () => {
    const walBytes = () => statSync(`${p.database}-wal`).size;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Sustained writes (cases with 20 KB descriptions) and reads, for about two seconds.
    const description = "x".repeat(20_000);
    const end = Date.now() + 2000;
    for (let i = 0; Date.now() < end; i++) {
      expect((await call("/api/v1/cases", { method: "POST", key: otherKey, body: { title: `Load ${i}`, severity: 2, description } })).status).toBe(200);
      expect((await call("/api/v1/cases?limit=20", { key: otherKey })).status).toBe(200);
    }
    // The checkpointer's next runs, no request in flight: before the fix the file kept its peak
    // (about 66 MB after the bulk and the dispatcher's fan-out of its events) until shutdown.
    let size = walBytes();
    for (let tries = 0; tries < 40 && size > walLimit; tries++) {
      await sleep(250);
      size = walBytes();
    }
    expect(size).toBeLessThanOrEqual(walLimit);
    expect(p.alive()).toBe(true);
  }, 60_000);

  it("5(b): a selectAll matching one more task than CASEKIT_BULK_MAX_ROWS is 400 bulk_too_large with the maximum, and changes nothing", async () => {
    const before = await call(`/api/v1/cases/${smallCase}/tasks`);
    const refused = await call("/api/v1/bulk/tasks", { method: "POST", body: { options: { selectAll: true }, fields: { title: "Everything" } } });
    expectProblem(refused, 400, "bulk_too_large");
    expect(refused.body).toMatchObject({ maxRows, errors: [{ path: "options.selectAll" }] });
    expect((await call(`/api/v1/cases/${smallCase}/tasks`)).body).toEqual(before.body);
  }, 60_000);

  it("7: an analyst who may not reopen a closed case or alert can neither assign it to themselves nor reopen it, one by one or in bulk", async () => {
    const password = "an analyst's long password";
    const analyst = await call("/api/v1/users", { method: "POST", body: { email: "ana@process.test", name: "Ana", role: "analyst", password } });
    expect(analyst.status, JSON.stringify(analyst.body)).toBe(200);
    const signIn = await p.request("/account/sign-in", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "ana@process.test", password }) });
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith("casekit_session="))!.split(";")[0]!;
    const { csrfToken } = (await signIn.json()) as { csrfToken: string };
    const minted = await p.request("/account/api-keys", {
      method: "POST",
      headers: { "content-type": "application/json", cookie, "x-csrf-token": csrfToken },
      body: JSON.stringify({ name: "analyst key", scopes: ["cases:read", "cases:write", "alerts:read", "alerts:write", "tasks:read", "tasks:write"] }),
    });
    const key = ((await minted.json()) as { key: string }).key;
    expect(key).toMatch(/^ck_/);

    const closedCase = (await call("/api/v1/cases", { method: "POST", body: { title: "Done", severity: 2 } })).body.id;
    const task = (await call(`/api/v1/cases/${closedCase}/tasks`, { method: "POST", body: { title: "Archive mails" } })).body.id;
    expect((await call(`/api/v1/cases/${closedCase}`, { method: "PATCH", body: { statusValue: "closed" } })).status).toBe(200);
    const alert = (await call("/api/v1/alerts", { method: "POST", body: { title: "Done", severity: 2, source: "siem", sourceRef: "closed-1" } })).body.id;
    expect((await call(`/api/v1/alerts/${alert}`, { method: "PATCH", body: { statusValue: "closed" } })).status).toBe(200);

    // The attack of the report: assign to oneself, then reopen.
    expectProblem(await call(`/api/v1/cases/${closedCase}`, { method: "PATCH", key, body: { assigneeId: analyst.body.id } }), 409, "record_closed");
    expectProblem(await call(`/api/v1/cases/${closedCase}`, { method: "PATCH", key, body: { statusValue: "in_progress" } }), 409, "invalid_transition");
    expectProblem(await call(`/api/v1/alerts/${alert}`, { method: "PATCH", key, body: { assigneeId: analyst.body.id } }), 409, "record_closed");
    expectProblem(await call(`/api/v1/alerts/${alert}`, { method: "PATCH", key, body: { statusValue: "new" } }), 409, "invalid_transition");
    const bulk = await call("/api/v1/bulk/alerts/assign", { method: "POST", key, body: { ids: [alert], assigneeId: analyst.body.id } });
    expect(bulk.body).toMatchObject({ matched: 1, assigned: 0, skipped: [{ id: alert, code: "record_closed" }] });
    expectProblem(await call(`/api/v1/tasks/${task}`, { method: "PATCH", key, body: { title: "Renamed" } }), 409, "record_closed");

    expect((await call(`/api/v1/cases/${closedCase}`)).body).toMatchObject({ statusValue: "closed", assigneeId: null });
    expect((await call(`/api/v1/alerts/${alert}`)).body).toMatchObject({ statusValue: "closed", assigneeId: null });
    // The admin may reopen.
    expect((await call(`/api/v1/cases/${closedCase}`, { method: "PATCH", body: { statusValue: "in_progress" } })).body.statusValue).toBe("in_progress");
    expect(p.alive()).toBe(true);
  }, 60_000);
});
