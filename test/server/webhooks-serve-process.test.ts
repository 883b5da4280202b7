// The real `casekit serve` process delivering webhooks (needs `npm run build`): its kept-alive
// sockets follow CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET and CASEKIT_WEBHOOK_IDLE_SOCKET_MS.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { ServeProcess } from "../helpers/serve-process.js";
import { startServeProcess } from "../helpers/serve-process.js";

const until = async (condition: () => boolean, what: string, withinMs = 15_000) => {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms: ${what}`);
  }
};

describe("casekit serve delivering webhooks", () => {
  let server: ServeProcess | undefined;
  const open = new Set<Socket>();
  let connections = 0;
  let received = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      // Slow enough that attempts overlap: the per-target bound is what limits the connections.
      setTimeout(() => res.writeHead(204).end(), 20);
    });
  });
  receiver.on("connection", (socket: Socket) => {
    connections += 1;
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  afterAll(async () => {
    await server?.stop();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it("reuses at most CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET connections, and closes them once idle for CASEKIT_WEBHOOK_IDLE_SOCKET_MS", async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const { port } = receiver.address() as AddressInfo;
    server = await startServeProcess({
      env: { CASEKIT_WEBHOOK_ALLOWLIST: `127.0.0.1:${port}`, CASEKIT_WEBHOOK_CONCURRENCY_PER_TARGET: "2", CASEKIT_WEBHOOK_IDLE_SOCKET_MS: "500" },
    });
    const json = { "content-type": "application/json" };
    const hook = await server.request("/api/v1/webhooks", { method: "POST", headers: json, body: JSON.stringify({ name: "Receiver", url: `http://127.0.0.1:${port}/hook`, events: ["case.created"] }) });
    expect(hook.ok).toBe(true);
    for (let n = 0; n < 30; n++) {
      const created = await server.request("/api/v1/cases", { method: "POST", headers: json, body: JSON.stringify({ title: `Case ${n}`, severity: 2 }) });
      expect(created.ok).toBe(true);
    }
    await until(() => received === 30, "30 deliveries");
    expect(connections).toBeLessThanOrEqual(2);
    expect(open.size).toBeGreaterThan(0);
    // Closed by casekit, well before the receiver's own keep-alive timeout (node's 5 s) would.
    await until(() => open.size === 0, "idle sockets closed", 3_000);
    expect(server.alive()).toBe(true);
  }, 40_000);
});
