/**
 * Webhook fan-out to a loopback receiver, out of process. Per round: `casekit serve` with its
 * dispatcher off takes `events` creates (each matching every subscription), stops; then
 * `casekit serve` starts on the same file with its dispatcher on, and the receiver (in the
 * harness) counts deliveries. Deliveries per second run from the first delivery to the last, and
 * the server's CPU per delivery over the same span.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import { api } from "./api.js";
import { cpuMicros } from "./cpu.js";
import type { Organization } from "./processes.js";
import { initOrganization, startServe } from "./processes.js";
import { createBody } from "./requests.js";

export interface DeliverySample {
  deliveriesPerSecond: number;
  cpuMicrosPerDelivery: number;
}

export interface Receiver {
  url: string;
  received: number;
  /** Resolves once `count` deliveries have arrived since the last reset. */
  reset(count: number, pid: number): Promise<{ seconds: number; cpuMicros: number }>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let expected = Infinity;
  let first = 0;
  let firstCpu = 0;
  let pid = 0;
  let done: ((value: { seconds: number; cpuMicros: number }) => void) | undefined;
  const state = { received: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(204).end();
      state.received += 1;
      if (state.received === 1) {
        first = performance.now();
        firstCpu = cpuMicros(pid);
      }
      if (state.received === expected) done?.({ seconds: (performance.now() - first) / 1000, cpuMicros: cpuMicros(pid) - firstCpu });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    get received() {
      return state.received;
    },
    reset(count, serverPid) {
      state.received = 0;
      expected = count;
      pid = serverPid;
      return new Promise((resolve) => (done = resolve));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function subscribe(origin: string, key: string, url: string, subscribers: number): Promise<void> {
  for (let n = 0; n < subscribers; n++) await api(origin, key, "POST", "/webhooks", { name: `Bench subscriber ${n}`, url, events: ["case.created"] });
}

export async function deliveryRound(database: string, organization: Organization, receiver: Receiver, events: number, subscribers: number): Promise<DeliverySample> {
  const queueing = await startServe("serve (webhooks, queueing)", database, { env: { CASEKIT_DISPATCHER: "off" } });
  try {
    const result = await autocannon({
      url: `${queueing.origin}/api/v1/cases`,
      method: "POST",
      headers: { authorization: `Bearer ${organization.apiKey}`, "content-type": "application/json" },
      body: createBody,
      connections: 10,
      amount: events,
    });
    if (result["2xx"] !== events) throw new Error(`webhooks: ${result["2xx"]} of ${events} creates succeeded`);
  } finally {
    await queueing.stop();
  }
  const deliveries = events * subscribers;
  let finished: Promise<{ seconds: number; cpuMicros: number }> | undefined;
  // The receiver needs the pid before the first delivery, which may come before /livez answers.
  const serve = await startServe("serve (webhooks, delivering)", database, {
    env: { CASEKIT_DISPATCHER: "on" },
    onSpawn: (pid) => (finished = receiver.reset(deliveries, pid)),
  });
  try {
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`webhooks: ${receiver.received} of ${deliveries} deliveries after 10 minutes`)), 600_000).unref());
    const { seconds, cpuMicros } = await Promise.race([finished!, timeout]);
    return { deliveriesPerSecond: (deliveries - 1) / seconds, cpuMicrosPerDelivery: cpuMicros / (deliveries - 1) };
  } finally {
    await serve.stop();
  }
}

/** The whole scenario on a fresh file: subscriptions set up once, then `rounds` delivery rounds. */
export async function webhookRounds(database: string, events: number, subscribers: number, rounds: number, log: (line: string) => void): Promise<DeliverySample[]> {
  const organization = initOrganization(database, "Hooked SOC");
  const receiver = await startReceiver();
  try {
    const setUp = await startServe("serve (webhooks, set-up)", database, { env: { CASEKIT_DISPATCHER: "off" } });
    try {
      await subscribe(setUp.origin, organization.apiKey, receiver.url, subscribers);
    } finally {
      await setUp.stop();
    }
    const samples: DeliverySample[] = [];
    for (let round = 1; round <= rounds; round++) {
      const sample = await deliveryRound(database, organization, receiver, events, subscribers);
      samples.push(sample);
      log(`round ${round}  webhooks ${sample.deliveriesPerSecond.toFixed(0)} deliveries/s, ${sample.cpuMicrosPerDelivery.toFixed(0)} µs CPU per delivery`);
    }
    return samples;
  } finally {
    await receiver.close();
  }
}
