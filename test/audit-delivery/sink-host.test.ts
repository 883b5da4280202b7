import { afterEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createCaseKit, parseWebhookAllowlist } from "../../core/index.js";
import type { CaseKit, Principal } from "../../core/index.js";
import type { AuditSinkHost } from "../../server/audit-delivery/sink-host.js";
import { startAuditSinkHost } from "../../server/audit-delivery/sink-host.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { migratedMemoryDatabase } from "../helpers/migrated-sqlite.js";
import type { SyslogReceiver } from "../helpers/syslog-receiver.js";
import { startSyslogReceiver, until } from "../helpers/syslog-receiver.js";

const seqsOf = (receiver: SyslogReceiver): number[] => receiver.messages.map((m) => Number(/ seq="(\d+)"/.exec(m)![1]));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("the audit sink host: stored sinks started, restarted and stopped as they change", () => {
  let host: AuditSinkHost | undefined;
  const receivers: SyslogReceiver[] = [];
  afterEach(async () => {
    await host?.stop();
    for (const receiver of receivers.splice(0)) await receiver.stop();
  });

  async function setUp() {
    const a = await startSyslogReceiver();
    const b = await startSyslogReceiver();
    receivers.push(a, b);
    const allowlist = `127.0.0.1:${a.port},127.0.0.1:${b.port}`;
    const storage = createSqliteStorage({ database: await migratedMemoryDatabase() });
    await storage.migrate();
    const kit: CaseKit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, config: { keyHashSecret, webhookAllowlist: allowlist } });
    const init = await kit.setup.initOrganization({ organizationName: "Host SOC", email: "admin@host.test" });
    const admin: Principal = await kit.authenticateKey(init.apiKey);
    host = startAuditSinkHost({ delivery: kit.auditSinkDelivery, allowlist: parseWebhookAllowlist(allowlist), reloadMs: 50, tuning: { pollMs: 20, retry: { minMs: 10, maxMs: 50 } } });
    const head = async () => (await kit.storage.read((tx) => tx.audit.head(admin.organizationId))).seq;
    const change = async (n: number) => {
      for (let i = 0; i < n; i++) await kit.teams.create(admin, { name: `Team ${Math.random().toString(36).slice(2)}` });
    };
    return { a, b, kit, admin, head, change };
  }

  it("a new target takes the events after the cursor, a pause holds them, resuming sends them, a delete stops; each event once", async () => {
    const { a, b, kit, admin, head, change } = await setUp();
    const first = (await head()) + 1;
    const sink = await kit.auditSinks.create(admin, { name: "A", config: { target: `tcp://127.0.0.1:${a.port}` } });
    await change(3);
    const onA = await head();
    await until(() => seqsOf(a).at(-1) === onA, "A has everything so far");

    await kit.auditSinks.update(admin, sink.id, { config: { target: `tcp://127.0.0.1:${b.port}` } });
    // The change reaches the running sink at the next reload (50 ms here): until then A may still get events.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await change(2);
    const onB = await head();
    await until(() => seqsOf(b).at(-1) === onB, "B has the events after the move");
    const moved = seqsOf(a).at(-1)!;
    expect(seqsOf(a)).toEqual(range(first, moved));
    expect(seqsOf(b)).toEqual(range(moved + 1, onB));
    expect(moved).toBeLessThan(onB - 1);

    await kit.auditSinks.update(admin, sink.id, { status: "paused" });
    await until(() => host!.running().size === 0, "the paused sink stopped");
    await change(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The pause itself was written before the sink stopped; what came after waits.
    expect(seqsOf(b).at(-1)).toBeLessThanOrEqual(onB + 1);

    await kit.auditSinks.update(admin, sink.id, { status: "active" });
    const resumed = await head();
    await until(() => seqsOf(b).at(-1) === resumed, "B caught up after resuming");
    expect(seqsOf(b)).toEqual(range(moved + 1, resumed));

    await kit.auditSinks.delete(admin, sink.id);
    await until(() => host!.running().size === 0, "the deleted sink stopped");
    await change(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seqsOf(b).at(-1)).toBeLessThanOrEqual(resumed + 1);
    expect(new Set(seqsOf(b)).size).toBe(seqsOf(b).length);
  }, 30_000);

  it("two hosts sharing the database: one runs the sink (its lease); a stopped one hands over at once, one that cannot renew stops writing before another takes over; each event once", async () => {
    const { a, kit, admin, head, change } = await setUp();
    await host!.stop();
    host = undefined;
    const real = kit.auditSinkDelivery;
    // Host one's renewals can be made to fail, as a host cut off from the database.
    let cutOff = false;
    const oneDelivery = { ...real, claim: (...args: Parameters<typeof real.claim>) => (cutOff ? Promise.reject(new Error("database away")) : real.claim(...args)) };
    const options = { allowlist: parseWebhookAllowlist(`127.0.0.1:${a.port}`), reloadMs: 100, leaseMs: 1_500, tuning: { pollMs: 20, retry: { minMs: 10, maxMs: 50 } } };
    const one = startAuditSinkHost({ ...options, delivery: oneDelivery, holder: "one" });
    const first = (await head()) + 1;
    await kit.auditSinks.create(admin, { name: "A", config: { target: `tcp://127.0.0.1:${a.port}` } });
    await until(() => one.running().size === 1, "host one runs the sink");
    const two = startAuditSinkHost({ ...options, delivery: real, holder: "two" });
    let three: AuditSinkHost | undefined;
    try {
      await change(5);
      let sent = await head();
      await until(() => seqsOf(a).at(-1) === sent, "everything so far delivered");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([one.running().size, two.running().size]).toEqual([1, 0]);

      // Host one cannot renew: it writes until its lease is no longer good by its own clock, then
      // holds back; host two takes the sink once the lease ran out, and continues after the cursor.
      cutOff = true;
      const cut = Date.now();
      for (let i = 0; i < 12; i++) {
        await change(1);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      await until(() => two.running().size === 1, "host two took the sink over");
      expect(Date.now() - cut).toBeGreaterThanOrEqual(1_000);
      sent = await head();
      await until(() => seqsOf(a).at(-1) === sent, "everything delivered after the takeover");
      expect(seqsOf(a)).toEqual(range(first, sent));
      cutOff = false;
      await until(() => one.running().size === 0, "host one, back, finds the lease taken and stops");

      // Host two stops: it gives the lease up, and a new host takes the sink at its first reload.
      await two.stop();
      three = startAuditSinkHost({ ...options, delivery: real, holder: "three" });
      const stoppedAt = Date.now();
      await until(() => three!.running().size === 1, "host three took the sink over");
      expect(Date.now() - stoppedAt).toBeLessThan(1_000);
      await change(3);
      sent = await head();
      await until(() => seqsOf(a).at(-1) === sent, "everything delivered by host three");
      expect(seqsOf(a)).toEqual(range(first, sent));
      expect(one.running().size).toBe(0);
    } finally {
      await Promise.all([one.stop(), two.stop(), three?.stop()]);
    }
  }, 30_000);
});
