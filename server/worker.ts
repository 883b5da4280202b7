import pRetry from "p-retry";
import { createNodeTransport } from "../adapters/outbound/node-transport.js";
import type { CaseKit } from "../core/index.js";
import { parseWebhookAllowlist } from "../core/index.js";
import type { Dispatcher, DispatcherOptions } from "../core/webhooks/dispatcher.js";
import { dispatcherDefaults } from "../core/webhooks/dispatcher.js";
import { startAuditSinkHost } from "./audit-delivery/sink-host.js";
import type { AuditSinkHostOptions } from "./audit-delivery/sink-host.js";

export interface WebhookWorkerOptions {
  allowlist?: string;
  retentionDays?: number;
  idleMs?: number;
  /** Attempts in flight at once, in all (the dispatcher's default without it). */
  concurrency?: number;
  /** Attempts in flight, and sockets open, to one target (a URL's scheme, host and port). */
  concurrencyPerTarget?: number;
  /** A kept-alive socket unused this long is closed (the transport's default without it). */
  idleSocketMs?: number;
  onError?: (error: unknown) => void;
  /** Told every attempt's outcome (the dispatcher's `onAttempt`): `casekit serve`'s metrics count them. */
  onAttempt?: DispatcherOptions["onAttempt"];
  /**
   * Organizations' syslog sinks of the audit events run beside the dispatcher (README "Audit
   * delivery"): how often they are read again, and who hears their failures and deliveries.
   */
  auditSinks?: Pick<AuditSinkHostOptions, "reloadMs" | "onError" | "onDelivered" | "tuning" | "lookup">;
}

/**
 * Starts delivering webhooks for `kit`: the node:http(s) transport with the deployment's SSRF
 * allowlist, looped until `stop()`, and beside it the organizations' audit syslog sinks. `casekit serve` runs it beside the API, `casekit worker` alone;
 * on PostgreSQL any number of them share the work (claims skip locked rows, leases expire).
 */
export function startWebhookWorker(kit: CaseKit, options: WebhookWorkerOptions = {}): DispatchLoop {
  const concurrency = options.concurrency ?? dispatcherDefaults.concurrency;
  const concurrencyPerTarget = Math.min(concurrency, options.concurrencyPerTarget ?? dispatcherDefaults.concurrencyPerTarget);
  // One socket per attempt the dispatcher may have in flight, per target and in all: none waits for a socket.
  const allowlist = parseWebhookAllowlist(options.allowlist ?? kit.deps.config.webhookAllowlist);
  const transport = createNodeTransport({
    allowlist,
    socketsPerTarget: concurrencyPerTarget,
    sockets: concurrency,
    ...(options.idleSocketMs ? { idleTimeoutMs: options.idleSocketMs } : {}),
  });
  const dispatcher = kit.createDispatcher({
    transport,
    concurrency,
    concurrencyPerTarget,
    // Recording attempts survives a passing database error: 5 retries with backoff, about 3 s in all.
    retryRecord: (write) => pRetry(write, { retries: 5, minTimeout: 50, factor: 2, randomize: true }),
    ...(options.retentionDays ? { retentionDays: options.retentionDays } : {}),
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
  });
  // Audit retention rides the loop's hourly purge: one job fewer to run, and it runs wherever webhooks are delivered.
  const loop = startDispatchLoop(dispatcher, { housekeeping: () => kit.audit.prune(), ...(options.idleMs ? { idleMs: options.idleMs } : {}), ...(options.onError ? { onError: options.onError } : {}) });
  // Audit sinks leave by the same rule as webhooks: the deployment's allowlist.
  const sinks = startAuditSinkHost({ ...options.auditSinks, delivery: kit.auditSinkDelivery, allowlist });
  return {
    async stop() {
      await Promise.all([loop.stop(), sinks.stop()]);
      // Nothing is sent any more: the kept-alive sockets go with the loop.
      transport.close();
    },
  };
}

export interface DispatchLoop {
  /** Resolves once the step in progress (if any) has finished; no new step starts. */
  stop(): Promise<void>;
}

/**
 * Runs the webhook dispatcher: steps back to back while there is work, then waits `idleMs`
 * before looking again. A failing step (the database away, say) is reported and retried after
 * the idle wait; the loop never dies of it. Purges finished deliveries about once an hour, and
 * then runs `housekeeping` (audit retention, core/audit/retention.ts).
 */
export function startDispatchLoop(
  dispatcher: Dispatcher,
  options: { idleMs?: number; purgeEveryMs?: number; housekeeping?: () => Promise<unknown>; onError?: (error: unknown) => void } = {},
): DispatchLoop {
  const idleMs = options.idleMs ?? 1_000;
  const purgeEveryMs = options.purgeEveryMs ?? 3_600_000;
  let stopped = false;
  let wake: (() => void) | null = null;
  let lastPurge = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });

  const running = (async () => {
    while (!stopped) {
      let busy = false;
      try {
        const { events, attempts } = await dispatcher.step();
        busy = events > 0 || attempts > 0;
        if (performance.now() - lastPurge > purgeEveryMs) {
          lastPurge = performance.now();
          await dispatcher.purge();
          await options.housekeeping?.();
        }
      } catch (error) {
        options.onError?.(error);
      }
      if (!busy && !stopped) await sleep(idleMs);
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
