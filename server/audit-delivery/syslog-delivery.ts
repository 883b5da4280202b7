import type { LookupFunction } from "node:net";
import { hostname as machineName } from "node:os";
import { connectSyslog } from "../../adapters/outbound/syslog-connection.js";
import type { WebhookAllowlist } from "../../core/webhooks/ssrf.js";
import type { AuditSource, DeliverableAuditEvent, DeliveryCursorStore } from "./source.js";
import type { SyslogSinkConfig } from "../../core/audit-sinks/config.js";
import { auditSyslogFormatter } from "./syslog-format.js";
import { startSyslogSink } from "./syslog-sink.js";
import type { SyslogSink, SyslogSinkOptions, SyslogSinkStats } from "./syslog-sink.js";

/** One sink to run: which organization's events go where (checkSyslogSinkConfig made `config`). */
export interface SyslogSinkSpec {
  sinkId: string;
  organizationId: string;
  config: SyslogSinkConfig;
}

export interface AuditSyslogDeliveryOptions<E extends DeliverableAuditEvent> {
  sinks: readonly SyslogSinkSpec[];
  /** Reads each sink's organization (redacted for that sink's grant; see AuditSource). */
  sourceFor(spec: SyslogSinkSpec): AuditSource<E>;
  cursors: DeliveryCursorStore;
  /** Asked before every write: false holds delivery back (this host's lease is not good now). */
  mayWrite?: () => boolean;
  /** The deployment's SSRF allowlist (CASEKIT_WEBHOOK_ALLOWLIST): one rule for every way data leaves. */
  allowlist: WebhookAllowlist;
  /** HOSTNAME of every message; the machine's name by default. */
  hostname?: string;
  lookup?: LookupFunction;
  /** Told every failed attempt of a sink, with its id. */
  onError?(sinkId: string, error: unknown): void;
  /** Told how many events a sink handed to its receiver, batch by batch. */
  onDelivered?(sinkId: string, count: number): void;
  /** Queue, batch, poll and retry figures of every sink (syslogSinkDefaults otherwise). */
  tuning?: Pick<SyslogSinkOptions<E>, "queueCapacity" | "batchSize" | "pollMs" | "retry" | "writeTimeoutMs">;
}

export interface AuditSyslogDelivery<E extends DeliverableAuditEvent> {
  /** Hands a committed event to the sinks of its organization; never blocks (see SyslogSink.notify). */
  notify(event: E): void;
  stats(): Record<string, SyslogSinkStats>;
  stop(): Promise<void>;
}

/**
 * Runs a set of syslog sinks, one per (sink, organization): each connects under the SSRF rule,
 * formats with its own facility and enterprise number, and keeps its own cursor, so a slow or
 * unreachable receiver holds back only its own sink. The composition point for a deployment's
 * sink (one spec per organization) and for organizations' own sinks alike.
 */
export function startAuditSyslogDelivery<E extends DeliverableAuditEvent>(options: AuditSyslogDeliveryOptions<E>): AuditSyslogDelivery<E> {
  const hostname = options.hostname ?? machineName();
  const running = new Map<string, SyslogSink<E>>();
  const byOrganization = new Map<string, SyslogSink<E>[]>();
  for (const spec of options.sinks) {
    const key = `${spec.sinkId}/${spec.organizationId}`;
    if (running.has(key)) throw new Error(`sink ${key} is listed twice`);
    const sink = startSyslogSink<E>({
      ...options.tuning,
      sinkId: spec.sinkId,
      organizationId: spec.organizationId,
      connect: () => connectSyslog(spec.config.target, { allowlist: options.allowlist, ...(options.lookup ? { lookup: options.lookup } : {}) }),
      source: options.sourceFor(spec),
      cursors: options.cursors,
      ...(options.mayWrite ? { mayWrite: options.mayWrite } : {}),
      format: auditSyslogFormatter({ facility: spec.config.facility, hostname, enterpriseId: spec.config.enterpriseId }),
      onError: (error) => options.onError?.(spec.sinkId, error),
      ...(options.onDelivered ? { onDelivered: (count: number) => options.onDelivered?.(spec.sinkId, count) } : {}),
    });
    running.set(key, sink);
    byOrganization.set(spec.organizationId, [...(byOrganization.get(spec.organizationId) ?? []), sink]);
  }
  return {
    notify(event) {
      for (const sink of byOrganization.get(event.organizationId) ?? []) sink.notify(event);
    },
    stats: () => Object.fromEntries([...running].map(([key, sink]) => [key, sink.stats()])),
    async stop() {
      await Promise.all([...running.values()].map((sink) => sink.stop()));
    },
  };
}
