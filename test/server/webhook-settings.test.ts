// The webhook delivery settings of `casekit serve` and `casekit worker`.
import { describe, expect, it } from "vitest";
import { transportDefaults } from "../../adapters/outbound/node-transport.js";
import { dispatcherDefaults } from "../../core/webhooks/dispatcher.js";
import { loadHostConfig } from "../../server/config.js";

const secret = { CASEKIT_KEY_HASH_SECRET: "x".repeat(32) };
const load = (env: Record<string, string> = {}) => loadHostConfig({ database: ":memory:" }, { ...secret, ...env });

describe("webhook delivery settings", () => {
  it("default to the dispatcher's and the transport's own defaults (64 in flight, 16 per target, idle sockets closed after 4 s)", () => {
    expect(load()).toMatchObject({ webhookConcurrency: 64, webhookConcurrencyPerTarget: 16, webhookIdleSocketMs: 4_000 });
    expect([dispatcherDefaults.concurrency, dispatcherDefaults.concurrencyPerTarget, transportDefaults.idleTimeoutMs]).toEqual([64, 16, 4_000]);
  });

  it("take whole numbers within their bounds, and stop the start otherwise", () => {
    expect(load({ CASEKIT_WEBHOOK_CONCURRENCY: "200", CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET: "4", CASEKIT_WEBHOOK_IDLE_SOCKET_MS: "250" })).toMatchObject({
      webhookConcurrency: 200,
      webhookConcurrencyPerTarget: 4,
      webhookIdleSocketMs: 250,
    });
    const bad: [string, string[]][] = [
      ["CASEKIT_WEBHOOK_CONCURRENCY", ["0", "1025", "2.5", "many"]],
      ["CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET", ["0", "257", "-1"]],
      ["CASEKIT_WEBHOOK_IDLE_SOCKET_MS", ["99", "600001", "1e3x"]],
    ];
    for (const [name, values] of bad) for (const value of values) expect(() => load({ [name]: value })).toThrow(new RegExp(name));
  });
});
