import { randomUUID } from "node:crypto";
import type { LookupFunction } from "node:net";
import { hostname as machineName } from "node:os";
import type { AuditEvent } from "../../core/audit/types.js";
import { checkSyslogSinkConfig } from "../../core/audit-sinks/config.js";
import { AuditSinkLeaseLost } from "../../core/audit-sinks/delivery.js";
import type { AuditSinkDelivery } from "../../core/audit-sinks/delivery.js";
import type { StoredAuditSink } from "../../core/audit-sinks/types.js";
import type { WebhookAllowlist } from "../../core/webhooks/ssrf.js";
import type { DeliveryCursorStore } from "./source.js";
import { startAuditSyslogDelivery } from "./syslog-delivery.js";
import type { AuditSyslogDelivery, AuditSyslogDeliveryOptions } from "./syslog-delivery.js";

export interface AuditSinkHostOptions {
  delivery: AuditSinkDelivery;
  /** The deployment's SSRF allowlist: a stored sink is checked against it again before it runs. */
  allowlist: WebhookAllowlist;
  /** How often the active sinks are read again, to start, restart or stop them, and their leases renewed. Default 2 s. */
  reloadMs?: number;
  /**
   * How long a sink's delivery lease lasts unrenewed (default 30 s): a host that stops renewing
   * (killed, hung) leaves its sinks to another host after this long. At least 3 × reloadMs.
   */
  leaseMs?: number;
  /** This host's name in the leases; unique per process by default (machine, pid, random). */
  holder?: string;
  hostname?: string;
  lookup?: LookupFunction;
  tuning?: AuditSyslogDeliveryOptions<AuditEvent>["tuning"];
  /** Told every failed attempt of a sink, and every failed reload (sinkId null). */
  onError?(sinkId: string | null, error: unknown): void;
  /** Told how many events a sink handed to its receiver (metrics). */
  onDelivered?(sinkId: string, count: number): void;
}

export interface AuditSinkHost {
  /** Reads the active sinks now and brings the running ones in line (the timer does it every reloadMs). */
  reload(): Promise<void>;
  running(): ReadonlyMap<string, AuditSyslogDelivery<AuditEvent>>;
  stop(): Promise<void>;
}

/** A sink with nothing new reads again after a second, as the webhook dispatcher looks again after an idle second. */
export const auditSinkHostDefaults = { reloadMs: 2_000, pollMs: 1_000, leaseMs: 30_000 } as const;

/**
 * Runs every organization's active syslog sinks in this process, one syslog delivery each
 * (syslog-delivery.ts: its own connection, formatter and cursor). The stored sinks are the truth:
 * every `reloadMs` they are read again; a new one starts, one changed since it started (its
 * `updatedAt`) restarts with its new configuration from its stored cursor, and one paused or
 * deleted stops. A sink whose stored target the allowlist no longer admits does not run.
 *
 * Hosts sharing a database (several workers on PostgreSQL) run each sink on one of them: a sink
 * runs only on the host holding its lease, taken and renewed at every reload, given up on stop.
 * The cursor moves only under the lease, and a host writes only while its lease is still good by
 * its own monotonic clock, so a host that hung past its lease never sends after the next one began.
 */
export function startAuditSinkHost(options: AuditSinkHostOptions): AuditSinkHost {
  const reloadMs = options.reloadMs ?? auditSinkHostDefaults.reloadMs;
  const leaseMs = options.leaseMs ?? auditSinkHostDefaults.leaseMs;
  if (leaseMs < 3 * reloadMs) throw new Error(`casekit: an audit sink lease (${leaseMs} ms) must last at least three reloads (${3 * reloadMs} ms)`);
  const holder = options.holder ?? `${machineName()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const { delivery } = options;
  const running = new Map<string, { updatedAt: string; organizationId: string; run: AuditSyslogDelivery<AuditEvent> }>();
  /** Until when (performance.now()) each lease held is good, with a reload to spare. */
  const goodUntil = new Map<string, number>();
  /** Running sinks whose cursor found the lease gone: stopped at the next reload. */
  const lost = new Set<string>();
  let stopped = false;
  let reloading: Promise<void> | null = null;
  /** Sinks whose stored configuration the deployment refuses, by the version refused: reported once, not every reload. */
  const refused = new Map<string, string>();

  const cursors: DeliveryCursorStore = {
    get: (sinkId, organizationId) => delivery.cursor(organizationId, sinkId),
    async set(sinkId, organizationId, seq) {
      try {
        await delivery.setCursor(organizationId, sinkId, seq, holder);
      } catch (error) {
        if (error instanceof AuditSinkLeaseLost) {
          lost.add(sinkId);
          goodUntil.delete(sinkId);
        }
        throw error;
      }
    },
  };

  const report = (sinkId: string | null, error: unknown) => {
    try {
      options.onError?.(sinkId, error);
    } catch {
      // A failing reporter must not stop delivery.
    }
  };

  function start(sink: StoredAuditSink): AuditSyslogDelivery<AuditEvent> | null {
    let config;
    try {
      config = checkSyslogSinkConfig(sink.config, options.allowlist);
    } catch (error) {
      if (refused.get(sink.id) !== sink.updatedAt) report(sink.id, error);
      refused.set(sink.id, sink.updatedAt);
      return null;
    }
    refused.delete(sink.id);
    return startAuditSyslogDelivery<AuditEvent>({
      sinks: [{ sinkId: sink.id, organizationId: sink.organizationId, config }],
      sourceFor: () => ({ after: (_organizationId, seq, limit) => delivery.eventsAfter(sink, seq, limit) }),
      cursors,
      mayWrite: () => performance.now() < (goodUntil.get(sink.id) ?? 0),
      allowlist: options.allowlist,
      ...(options.hostname ? { hostname: options.hostname } : {}),
      ...(options.lookup ? { lookup: options.lookup } : {}),
      tuning: { pollMs: auditSinkHostDefaults.pollMs, ...options.tuning },
      onError: report,
      ...(options.onDelivered ? { onDelivered: options.onDelivered } : {}),
    });
  }

  /** Takes or renews the lease of every active sink this host may run; answers those it holds. */
  async function leased(active: readonly StoredAuditSink[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (const sink of active) {
      if (stopped) break;
      const asked = performance.now();
      let mine = false;
      try {
        mine = await delivery.claim(sink, holder, leaseMs);
      } catch (error) {
        report(sink.id, error);
        // A failed renewal changes nothing: the lease held stays good until it runs out.
        if ((goodUntil.get(sink.id) ?? 0) > performance.now()) held.add(sink.id);
        continue;
      }
      if (mine) {
        goodUntil.set(sink.id, asked + leaseMs - reloadMs);
        held.add(sink.id);
      } else goodUntil.delete(sink.id);
    }
    return held;
  }

  async function reconcile(): Promise<void> {
    const active = new Map((await delivery.activeSinks()).map((sink) => [sink.id, sink]));
    const held = await leased([...active.values()].filter((sink) => !refusedNow(sink)));
    const stopping: Promise<void>[] = [];
    for (const [id, entry] of running) {
      const now = active.get(id);
      if (now && now.updatedAt === entry.updatedAt && held.has(id) && !lost.has(id)) continue;
      running.delete(id);
      lost.delete(id);
      stopping.push(
        entry.run.stop().then(async () => {
          // Paused or deleted: the lease goes with the run, so a resumed sink starts on any host at once.
          if (!active.has(id) && held.has(id)) await giveUp({ id, organizationId: entry.organizationId });
        }),
      );
    }
    // A restarted sink's old connection finishes its write and saves its cursor before the new one reads it.
    await Promise.all(stopping);
    if (stopped) return;
    for (const sink of active.values()) {
      if (running.has(sink.id) || !held.has(sink.id)) continue;
      const run = start(sink);
      if (run) running.set(sink.id, { updatedAt: sink.updatedAt, organizationId: sink.organizationId, run });
      // This host's allowlist refuses the sink: another host's may not.
      else await giveUp(sink);
    }
  }

  async function giveUp(sink: Pick<StoredAuditSink, "id" | "organizationId">): Promise<void> {
    goodUntil.delete(sink.id);
    await delivery.release(sink, holder).catch((error: unknown) => report(sink.id, error));
  }

  /** A sink whose stored configuration this deployment already refused, unchanged since: not leased, so another host may run it. */
  const refusedNow = (sink: StoredAuditSink): boolean => refused.get(sink.id) === sink.updatedAt;

  const reload = (): Promise<void> =>
    (reloading ??= reconcile()
      .catch((error: unknown) => report(null, error))
      .finally(() => (reloading = null)));

  const timer = setInterval(() => void reload(), reloadMs);
  timer.unref();
  void reload();

  return {
    reload,
    running: () => new Map([...running].map(([id, entry]) => [id, entry.run])),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await reloading;
      const entries = [...running];
      running.clear();
      await Promise.all(entries.map(([, entry]) => entry.run.stop()));
      // Another host takes these sinks over at its next reload, not after the lease runs out.
      await Promise.all(entries.map(([id, entry]) => giveUp({ id, organizationId: entry.organizationId })));
    },
  };
}
