// The real `casekit serve` process delivering an organization's syslog sink (needs `npm run build`):
// a sink created through the API sends every audit event to a TCP receiver on loopback exactly
// once, in order, and a restarted server continues from the stored cursor.
import { afterAll, describe, expect, it } from "vitest";
import type { ServeProcess } from "../helpers/serve-process.js";
import { startServeProcess } from "../helpers/serve-process.js";
import type { SyslogReceiver } from "../helpers/syslog-receiver.js";
import { startSyslogReceiver, until } from "../helpers/syslog-receiver.js";

const json = { "content-type": "application/json" };

/** The seq of each received message, from its structured data. */
const seqsOf = (messages: readonly string[]): number[] => messages.map((m) => Number(/ seq="(\d+)"/.exec(m)?.[1] ?? Number.NaN));

async function headOf(server: ServeProcess): Promise<number> {
  const answer = await server.request("/api/v1/audit-events?limit=1");
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { data: { seq: number }[] }).data[0]!.seq;
}

async function makeChanges(server: ServeProcess, count: number, label: string): Promise<void> {
  for (let n = 0; n < count; n++) {
    const created = await server.request("/api/v1/cases", { method: "POST", headers: json, body: JSON.stringify({ title: `${label} ${n}`, severity: 2 }) });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const changed = await server.request(`/api/v1/cases/${id}`, { method: "PATCH", headers: json, body: JSON.stringify({ title: `${label} ${n}, renamed` }) });
    expect(changed.status).toBe(200);
  }
}

describe("casekit serve delivering an audit syslog sink", () => {
  let server: ServeProcess | undefined;
  let receiver: SyslogReceiver | undefined;
  afterAll(async () => {
    await server?.stop();
    await receiver?.stop();
  });

  it("sends every audit event once, in order, across a restart", async () => {
    receiver = await startSyslogReceiver();
    const env = { CASEKIT_WEBHOOK_ALLOWLIST: `127.0.0.1:${receiver.port}` };
    server = await startServeProcess({ env });

    // The SSRF rule: loopback is refused unless the allowlist names that address and port.
    const refused = await server.request("/api/v1/audit-sinks", { method: "POST", headers: json, body: JSON.stringify({ name: "Elsewhere", config: { target: `tcp://127.0.0.1:${receiver.port + 1}` } }) });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ code: "invalid_sink_config", errors: [{ path: "config.target" }] });

    const created = await server.request("/api/v1/audit-sinks", { method: "POST", headers: json, body: JSON.stringify({ name: "Loopback SIEM", config: { target: `tcp://127.0.0.1:${receiver.port}` } }) });
    expect(created.status).toBe(200);
    const sink = (await created.json()) as { id: string; status: string };
    expect(sink).toMatchObject({ id: expect.stringMatching(/^snk_/), status: "active" });
    // The sink starts at the head: its own creation is the first event it sends.
    const first = await headOf(server);

    await makeChanges(server, 5, "Before restart");
    const beforeRestart = await headOf(server);
    await until(() => seqsOf(receiver!.messages).at(-1) === beforeRestart, `seq ${beforeRestart} received`, 20_000);
    const firstMessage = receiver.messages[0]!;
    expect(firstMessage).toMatch(/^<109>1 \S+ \S+ casekit - audit_sink\.created \[casekit@32473 /);
    const event = JSON.parse(firstMessage.slice(firstMessage.indexOf("\uFEFF") + 1)) as { action: string; target: { id: string }; at: string };
    expect(event).toMatchObject({ action: "audit_sink.created", target: { id: sink.id } });

    await server.stop({ keepDatabase: true });
    server = await startServeProcess({ env, restart: server });
    await makeChanges(server, 5, "After restart");
    const last = await headOf(server);
    await until(() => seqsOf(receiver!.messages).at(-1) === last, `seq ${last} received`, 20_000);
    // Nothing more arrives: give the sink a few polls to send a duplicate if it would.
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    const seqs = seqsOf(receiver.messages);
    expect(seqs).toEqual(Array.from({ length: last - first + 1 }, (_, i) => first + i));
    expect(server.alive()).toBe(true);
  }, 90_000);
});
