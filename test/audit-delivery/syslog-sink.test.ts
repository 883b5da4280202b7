import type { LookupFunction } from "node:net";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectSyslog, SyslogConnectError } from "../../adapters/outbound/syslog-connection.js";
import type { SyslogTarget } from "../../adapters/outbound/syslog-connection.js";
import { parseWebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { createMemoryCursorStore } from "../../server/audit-delivery/source.js";
import type { DeliveryCursorStore } from "../../server/audit-delivery/source.js";
import { auditSyslogFormatter } from "../../server/audit-delivery/syslog-format.js";
import { startSyslogSink } from "../../server/audit-delivery/syslog-sink.js";
import { checkSyslogSinkConfig } from "../../core/audit-sinks/config.js";
import { startAuditSyslogDelivery } from "../../server/audit-delivery/syslog-delivery.js";
import type { SyslogSink } from "../../server/audit-delivery/syslog-sink.js";
import { selfSignedCertificate, startSyslogReceiver, until } from "../helpers/syslog-receiver.js";
import type { SyslogReceiver } from "../helpers/syslog-receiver.js";
import { createSyntheticAuditLog } from "./synthetic-audit.js";

const loopbackAllowed = parseWebhookAllowlist("127.0.0.1");
const format = auditSyslogFormatter({ facility: 13, hostname: "test", enterpriseId: "32473" });
const seqOf = (message: string) => Number(/ seq="(\d+)"/.exec(message)![1]);

let certificate: { cert: string; key: string };
beforeAll(() => {
  certificate = selfSignedCertificate();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function receiver(tls = false): Promise<SyslogReceiver> {
  const started = await startSyslogReceiver(tls ? certificate : undefined);
  cleanups.push(() => started.stop());
  return started;
}

function sink(log: ReturnType<typeof createSyntheticAuditLog>, target: SyslogTarget, options: { cursors?: DeliveryCursorStore; queueCapacity?: number; allowlist?: string; errors?: unknown[]; lookup?: LookupFunction } = {}): SyslogSink<never> {
  const started = startSyslogSink({
    sinkId: "snk_test",
    organizationId: "org_a",
    connect: () => connectSyslog(target, { allowlist: parseWebhookAllowlist(options.allowlist ?? "127.0.0.1"), timeoutMs: 2_000, ...(options.lookup ? { lookup: options.lookup } : {}) }),
    source: log.source,
    cursors: options.cursors ?? createMemoryCursorStore(),
    format,
    batchSize: 16,
    pollMs: 50,
    retry: { minMs: 20, maxMs: 200 },
    ...(options.queueCapacity ? { queueCapacity: options.queueCapacity } : {}),
    onError: (error) => options.errors?.push(error),
  });
  cleanups.push(() => started.stop());
  return started as SyslogSink<never>;
}

const sequence = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("syslog sink over TCP", () => {
  it("delivers every event once, in seq order, as RFC 5424 messages", async () => {
    const log = createSyntheticAuditLog();
    const events = Array.from({ length: 50 }, () => log.append());
    log.append("org_b"); // another organization's event never reaches this sink
    const rx = await receiver();
    const running = sink(log, { protocol: "tcp", host: "127.0.0.1", port: rx.port });
    await until(() => rx.messages.length >= 50, "50 messages");
    expect(rx.messages.map(seqOf)).toEqual(sequence(1, 50));
    const first = rx.messages[0]!;
    expect(first).toMatch(/^<\d+>1 2026-01-01T00:00:01\.000Z test casekit - alert\.promote \[casekit@32473 org="org_a" seq="1" /);
    expect(JSON.parse(first.slice(first.indexOf("\uFEFF") + 1))).toEqual(events[0]);
    expect(running.stats()).toMatchObject({ cursor: 50, delivered: 50, dropped: 0, connected: true, connections: 1 });
  });

  it("never blocks notify: a full queue drops and counts, and the source fills the gap without loss or duplicate", async () => {
    const log = createSyntheticAuditLog();
    const rx = await receiver();
    const running = sink(log, { protocol: "tcp", host: "127.0.0.1", port: rx.port }, { queueCapacity: 4 });
    for (let i = 0; i < 200; i++) running.notify(log.append() as never);
    expect(running.stats().dropped).toBeGreaterThan(0);
    expect(running.stats().queued).toBeLessThanOrEqual(4);
    await until(() => rx.messages.length >= 200, "200 messages");
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(rx.messages.map(seqOf)).toEqual(sequence(1, 200));
  });

  it("resumes after a receiver restart: no loss, no duplicate, one new connection", async () => {
    const log = createSyntheticAuditLog();
    const rx = await receiver();
    const errors: unknown[] = [];
    const running = sink(log, { protocol: "tcp", host: "127.0.0.1", port: rx.port }, { errors });
    for (let i = 0; i < 30; i++) running.notify(log.append() as never);
    await until(() => rx.messages.length >= 30, "the first 30");

    await rx.stop();
    await until(() => !running.stats().connected, "the sink to notice the close");
    for (let i = 0; i < 40; i++) running.notify(log.append() as never);
    await until(() => errors.some((e) => e instanceof SyslogConnectError && e.kind === "network"), "a refused reconnect");
    expect(running.stats().cursor).toBe(30);

    await rx.start();
    for (let i = 0; i < 30; i++) running.notify(log.append() as never);
    await until(() => rx.messages.length >= 100, "all 100");
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(rx.messages.map(seqOf)).toEqual(sequence(1, 100));
    expect(running.stats()).toMatchObject({ cursor: 100, delivered: 100, connections: 2 });
  });

  it("resumes from the persisted cursor when a new sink starts with the same id", async () => {
    const log = createSyntheticAuditLog();
    const cursors = createMemoryCursorStore();
    const rx = await receiver();
    for (let i = 0; i < 20; i++) log.append();
    const first = sink(log, { protocol: "tcp", host: "127.0.0.1", port: rx.port }, { cursors });
    await until(() => rx.messages.length >= 20, "20 messages");
    await first.stop();
    expect(await cursors.get("snk_test", "org_a")).toBe(20);

    for (let i = 0; i < 15; i++) log.append();
    sink(log, { protocol: "tcp", host: "127.0.0.1", port: rx.port }, { cursors });
    await until(() => rx.messages.length >= 35, "35 messages");
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(rx.messages.map(seqOf)).toEqual(sequence(1, 35));
  });

  it("retries while the source fails, then delivers what it missed", async () => {
    const log = createSyntheticAuditLog();
    const rx = await receiver();
    const errors: unknown[] = [];
    log.fail(true);
    const running = sink(log, { protocol: "tcp", host: "127.0.0.1", port: rx.port }, { errors });
    for (let i = 0; i < 10; i++) log.append();
    await until(() => errors.length >= 3, "three failed reads");
    expect(rx.messages).toEqual([]);
    log.fail(false);
    await until(() => rx.messages.length >= 10, "10 messages");
    expect(rx.messages.map(seqOf)).toEqual(sequence(1, 10));
    expect(running.stats().failures).toBeGreaterThanOrEqual(3);
  });
});

describe("syslog sink over TLS", () => {
  it("delivers to a receiver whose certificate the configured CA signs", async () => {
    const log = createSyntheticAuditLog();
    for (let i = 0; i < 25; i++) log.append();
    const rx = await receiver(true);
    sink(log, { protocol: "tls", host: "127.0.0.1", port: rx.port, ca: certificate.cert });
    await until(() => rx.messages.length >= 25, "25 messages");
    expect(rx.messages.map(seqOf)).toEqual(sequence(1, 25));
  });

  it("checks the certificate against servername when given", async () => {
    const rx = await receiver(true);
    const socket = await connectSyslog({ protocol: "tls", host: "127.0.0.1", port: rx.port, ca: certificate.cert, servername: "localhost" }, { allowlist: loopbackAllowed });
    socket.destroy();
    await expect(connectSyslog({ protocol: "tls", host: "127.0.0.1", port: rx.port, ca: certificate.cert, servername: "other.example" }, { allowlist: loopbackAllowed })).rejects.toMatchObject({ kind: "network" });
  });

  it("sends nothing to a receiver whose certificate is not trusted", async () => {
    const log = createSyntheticAuditLog();
    for (let i = 0; i < 5; i++) log.append();
    const rx = await receiver(true);
    const errors: unknown[] = [];
    const running = sink(log, { protocol: "tls", host: "127.0.0.1", port: rx.port }, { errors });
    await until(() => errors.length >= 2, "two refused handshakes");
    expect(errors[0]).toMatchObject({ kind: "network", message: expect.stringMatching(/SELF_SIGNED|CERT/) });
    expect(rx.messages).toEqual([]);
    expect(running.stats().cursor).toBe(0);
  });
});

describe("syslog sink and the SSRF rule", () => {
  it("refuses private and loopback receivers unless the allowlist names them, before connecting", async () => {
    const rx = await receiver();
    for (const host of ["127.0.0.1", "10.0.0.8", "169.254.169.254", "::1", "::ffff:127.0.0.1", "localhost", "syslog.internal"]) {
      await expect(connectSyslog({ protocol: "tcp", host, port: rx.port }, { allowlist: parseWebhookAllowlist("") })).rejects.toMatchObject({ kind: "blocked" });
    }
    expect(rx.connections).toBe(0);
  });

  it("refuses a name that resolves to a loopback address (DNS rebinding), before the socket connects", async () => {
    const rx = await receiver();
    const rebinding: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
      else callback(null, "127.0.0.1", 4);
    };
    await expect(connectSyslog({ protocol: "tcp", host: "logs.example.com", port: rx.port }, { allowlist: parseWebhookAllowlist(""), lookup: rebinding })).rejects.toMatchObject({ kind: "blocked", message: expect.stringMatching(/loopback/) });
    await expect(connectSyslog({ protocol: "tls", host: "logs.example.com", port: rx.port }, { allowlist: parseWebhookAllowlist(""), lookup: rebinding })).rejects.toMatchObject({ kind: "blocked" });
    expect(rx.connections).toBe(0);
  });

  it("a sink aimed at a refused receiver reports blocked attempts, sends nothing and keeps its cursor", async () => {
    const log = createSyntheticAuditLog();
    for (let i = 0; i < 5; i++) log.append();
    const rx = await receiver();
    const errors: unknown[] = [];
    const running = sink(log, { protocol: "tcp", host: "127.0.0.1", port: rx.port }, { allowlist: "", errors });
    await until(() => errors.length >= 2, "two refusals");
    expect(errors.every((e) => e instanceof SyslogConnectError && e.kind === "blocked")).toBe(true);
    expect(rx.connections).toBe(0);
    expect(running.stats().cursor).toBe(0);
  });

  it("the allowlist's port is honoured", async () => {
    const rx = await receiver();
    await expect(connectSyslog({ protocol: "tcp", host: "127.0.0.1", port: rx.port }, { allowlist: parseWebhookAllowlist(`127.0.0.1:${rx.port === 1 ? 2 : 1}`) })).rejects.toMatchObject({ kind: "blocked" });
    const socket = await connectSyslog({ protocol: "tcp", host: "127.0.0.1", port: rx.port }, { allowlist: parseWebhookAllowlist(`127.0.0.1:${rx.port}`) });
    socket.destroy();
  });
});

describe("audit syslog delivery (several sinks)", () => {
  it("routes each organization's events to its own sinks, each with its own facility and cursor", async () => {
    const log = createSyntheticAuditLog();
    const [tcp, secure] = [await receiver(), await receiver(true)];
    const cursors = createMemoryCursorStore();
    const delivery = startAuditSyslogDelivery({
      sinks: [
        { sinkId: "snk_a", organizationId: "org_a", config: checkSyslogSinkConfig({ target: `tcp://127.0.0.1:${tcp.port}`, facility: 16 }, loopbackAllowed) },
        { sinkId: "snk_b", organizationId: "org_b", config: checkSyslogSinkConfig({ target: `tls://127.0.0.1:${secure.port}`, ca: certificate.cert }, loopbackAllowed) },
      ],
      sourceFor: () => log.source,
      cursors,
      allowlist: loopbackAllowed,
      hostname: "casekit-1",
      tuning: { pollMs: 50, retry: { minMs: 20, maxMs: 200 } },
    });
    cleanups.push(() => delivery.stop());
    for (let i = 0; i < 12; i++) delivery.notify(log.append(i % 3 === 0 ? "org_b" : "org_a"));
    await until(() => tcp.messages.length >= 8 && secure.messages.length >= 4, "8 + 4 messages");
    expect(tcp.messages.every((m) => m.includes(' org="org_a" ') && /^<13[0-4]>1 \S+ casekit-1 /.test(m))).toBe(true);
    expect(secure.messages.every((m) => m.includes(' org="org_b" ') && /^<10[4-9]>1 /.test(m))).toBe(true);
    expect(tcp.messages.map(seqOf)).toEqual(sequence(1, 8));
    expect(secure.messages.map(seqOf)).toEqual(sequence(1, 4));
    await delivery.stop();
    expect(cursors.snapshot()).toEqual(new Map([["snk_a\u0000org_a", 8], ["snk_b\u0000org_b", 4]]));
    expect(Object.keys(delivery.stats())).toEqual(["snk_a/org_a", "snk_b/org_b"]);
  });
});
