import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createCaseKit } from "../../core/index.js";
import { keyHashSecret } from "../helpers/kit.js";
import type { Receiver } from "../helpers/receiver.js";
import { startReceiver } from "../helpers/receiver.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

/**
 * Crash test of the outbox and the dispatcher: a child process changes records and delivers
 * webhooks; it is killed (SIGKILL: no shutdown code runs) at random moments and restarted. After
 * a last run that only delivers, every committed change must have reached the receiver at least
 * once, duplicates must carry the same webhook-id, and no rolled-back change may ever arrive.
 */
const child = fileURLToPath(new URL("./crash-child.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "casekit-crash-"));
let receiver: Receiver | undefined;
afterAll(async () => {
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(env: Record<string, string>): { process: ChildProcess; ready: Promise<void>; exited: Promise<void> } {
  const proc = spawn(process.execPath, ["--import", "tsx", child], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    proc.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    proc.once("exit", (code) => reject(new Error(`child exited (${code}) before ready: ${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  return { process: proc, ready, exited };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("crash safety of events and deliveries", () => {
  it("delivers every committed change at least once across SIGKILLs, with stable webhook-ids, and never a rolled-back one", async () => {
    // Receivers fail now and then, so retries are in flight when the process dies: each delivery's
    // first two attempts fail one time in four. Never more than two, so no delivery's backoff
    // (100 ms doubling) outlasts the drain below: a run of six 500s would schedule its next try
    // seconds away, and the drain would end with it still pending (the flake this bound removes).
    const attemptsOf = new Map<string, number>();
    receiver = await startReceiver((request) => {
      const id = String(request.headers["webhook-id"]);
      const attempt = (attemptsOf.get(id) ?? 0) + 1;
      attemptsOf.set(id, attempt);
      return { status: attempt <= 2 && Math.random() < 0.25 ? 500 : 200, delayMs: Math.floor(Math.random() * 20) };
    });
    const file = join(dir, "crash.db");
    const storage = createSqliteStorage({ path: file });
    await storage.migrate();
    const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, config: { keyHashSecret, webhookAllowlist: "127.0.0.1" } });
    const init = await kit.setup.initOrganization({ organizationName: "Crash SOC", email: "admin@crash.test" });
    const admin = await kit.authenticateKey(init.apiKey);
    await kit.webhooks.create(admin, { name: "Receiver", url: receiver.url(), events: ["case.created"], retryDelayMs: 100, maxRetries: 10 });
    await storage.close();
    const env = { CRASH_DB: file, CRASH_ORG: init.organization.id, CRASH_USER: admin.userId, CRASH_SECRET: keyHashSecret };

    for (let round = 0; round < 5; round++) {
      const run = start(env);
      await run.ready;
      await pause(100 + Math.floor(Math.random() * 400));
      run.process.kill("SIGKILL");
      await run.exited;
    }

    // A last process only delivers; it is done when nothing is left to fan out or to retry.
    const drain = start({ ...env, MODE: "drain" });
    await drain.ready;
    const db = new Database(file, { readonly: true });
    const open = () =>
      db.prepare("select (select count(*) from events where dispatched_at is null) + (select count(*) from webhook_deliveries where status = 'pending') as n").get() as { n: number };
    const deadline = Date.now() + 30_000;
    while (open().n > 0 && Date.now() < deadline) await pause(50);
    drain.process.kill("SIGKILL");
    await drain.exited;

    // Should it ever fail, say what was left: fan-out not done, or a delivery and its schedule.
    const left = () =>
      JSON.stringify({
        events: db.prepare("select id, occurred_at from events where dispatched_at is null").all(),
        deliveries: db.prepare("select * from webhook_deliveries where status = 'pending'").all(),
        now: new Date().toISOString(),
      });
    expect(open().n, left()).toBe(0);
    const committed = (db.prepare("select resource_id as id, id as eventId from events where name = 'case.created'").all() as { id: string; eventId: string }[]);
    const rolledBackCases = db.prepare("select count(*) as n from cases where title like 'rolled back%'").get() as { n: number };
    const failed = db.prepare("select count(*) as n from webhook_deliveries where status = 'failed'").get() as { n: number };
    db.close();
    expect(rolledBackCases.n).toBe(0);
    expect(failed.n).toBe(0);
    expect(committed.length).toBeGreaterThan(5);

    const arrivals = receiver.received.map((request) => ({
      webhookId: String(request.headers["webhook-id"]),
      payload: JSON.parse(request.body) as { eventId: string; data: { id: string; title: string } },
    }));
    // Never a rolled-back change.
    expect(arrivals.filter((a) => a.payload.data.title.startsWith("rolled back"))).toEqual([]);
    // Every committed change at least once.
    const arrived = new Set(arrivals.map((a) => a.payload.data.id));
    expect(committed.filter((c) => !arrived.has(c.id))).toEqual([]);
    // Duplicates (a retry after a 500, or an attempt redone after a kill) keep their webhook-id.
    const idsPerEvent = new Map<string, Set<string>>();
    for (const a of arrivals) idsPerEvent.set(a.payload.eventId, (idsPerEvent.get(a.payload.eventId) ?? new Set()).add(a.webhookId));
    expect([...idsPerEvent.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    expect(arrivals.length).toBeGreaterThanOrEqual(committed.length);
  }, 90_000);
});
