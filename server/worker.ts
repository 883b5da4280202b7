import pRetry from "p-retry";
import { createNodeTransport } from "../adapters/outbound/node-transport.js";
import type { CaseKit } from "../core/index.js";
import { parseWebhookAllowlist } from "../core/index.js";
import type { Dispatcher } from "../core/webhooks/dispatcher.js";

/**
 * Starts delivering webhooks for `kit`: the node:http(s) transport with the deployment's SSRF
 * allowlist, looped until `stop()`. `casekit serve` runs it beside the API, `casekit worker` alone;
 * on PostgreSQL any number of them share the work (claims skip locked rows, leases expire).
 */
export function startWebhookWorker(
  kit: CaseKit,
  options: { allowlist?: string; retentionDays?: number; idleMs?: number; onError?: (error: unknown) => void } = {},
): DispatchLoop {
  const transport = createNodeTransport({ allowlist: parseWebhookAllowlist(options.allowlist ?? kit.deps.config.webhookAllowlist) });
  const dispatcher = kit.createDispatcher({
    transport,
    // Recording an attempt survives a passing database error: 5 retries with backoff, about 3 s in all.
    retryRecord: (write) => pRetry(write, { retries: 5, minTimeout: 50, factor: 2, randomize: true }),
    ...(options.retentionDays ? { retentionDays: options.retentionDays } : {}),
  });
  const loop = startDispatchLoop(dispatcher, { ...(options.idleMs ? { idleMs: options.idleMs } : {}), ...(options.onError ? { onError: options.onError } : {}) });
  return {
    async stop() {
      await loop.stop();
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
 * the idle wait; the loop never dies of it. Purges finished deliveries about once an hour.
 */
export function startDispatchLoop(
  dispatcher: Dispatcher,
  options: { idleMs?: number; purgeEveryMs?: number; onError?: (error: unknown) => void } = {},
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
