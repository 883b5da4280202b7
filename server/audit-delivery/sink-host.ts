import type { LookupFunction } from "node:net";
import type { AuditEvent } from "../../core/audit/types.js";
import { checkSyslogSinkConfig } from "../../core/audit-sinks/config.js";
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
  /** How often the active sinks are read again, to start, restart or stop them. Default 2 s. */
  reloadMs?: number;
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
export const auditSinkHostDefaults = { reloadMs: 2_000, pollMs: 1_000 } as const;

/**
 * Runs every organization's active syslog sinks in this process, one syslog delivery each
 * (syslog-delivery.ts: its own connection, formatter and cursor). The stored sinks are the truth:
 * every `reloadMs` they are read again; a new one starts, one changed since it started (its
 * `updatedAt`) restarts with its new configuration from its stored cursor, and one paused or
 * deleted stops. A sink whose stored target the allowlist no longer admits does not run.
 */
export function startAuditSinkHost(options: AuditSinkHostOptions): AuditSinkHost {
  const reloadMs = options.reloadMs ?? auditSinkHostDefaults.reloadMs;
  const { delivery } = options;
  const running = new Map<string, { updatedAt: string; run: AuditSyslogDelivery<AuditEvent> }>();
  let stopped = false;
  let reloading: Promise<void> | null = null;
  /** Sinks whose stored configuration the deployment refuses, by the version refused: reported once, not every reload. */
  const refused = new Map<string, string>();

  const cursors: DeliveryCursorStore = {
    get: (sinkId, organizationId) => delivery.cursor(organizationId, sinkId),
    set: (sinkId, organizationId, seq) => delivery.setCursor(organizationId, sinkId, seq),
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
      allowlist: options.allowlist,
      ...(options.hostname ? { hostname: options.hostname } : {}),
      ...(options.lookup ? { lookup: options.lookup } : {}),
      tuning: { pollMs: auditSinkHostDefaults.pollMs, ...options.tuning },
      onError: report,
      ...(options.onDelivered ? { onDelivered: options.onDelivered } : {}),
    });
  }

  async function reconcile(): Promise<void> {
    const active = new Map((await delivery.activeSinks()).map((sink) => [sink.id, sink]));
    const stopping: Promise<void>[] = [];
    for (const [id, entry] of running) {
      const now = active.get(id);
      if (now && now.updatedAt === entry.updatedAt) continue;
      running.delete(id);
      stopping.push(entry.run.stop());
    }
    // A restarted sink's old connection finishes its write and saves its cursor before the new one reads it.
    await Promise.all(stopping);
    if (stopped) return;
    for (const sink of active.values()) {
      if (running.has(sink.id)) continue;
      const run = start(sink);
      if (run) running.set(sink.id, { updatedAt: sink.updatedAt, run });
    }
  }

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
      await Promise.all([...running.values()].map((entry) => entry.run.stop()));
      running.clear();
    },
  };
}
