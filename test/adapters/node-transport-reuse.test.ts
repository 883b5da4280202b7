import http from "node:http";
import net from "node:net";
import type { AddressInfo, LookupFunction, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { NodeTransport } from "../../adapters/outbound/node-transport.js";
import { createNodeTransport } from "../../adapters/outbound/node-transport.js";
import type { OutboundRequest } from "../../core/ports/outbound.js";
import { parseWebhookAllowlist } from "../../core/webhooks/ssrf.js";

/**
 * Keep-alive in the webhook transport: sockets are reused per target and bounded, idle ones are
 * closed, every NEW connection still passes the SSRF checks, and a reused socket the receiver
 * reset is replaced once.
 */
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A loopback receiver that counts connections, the ones open now, and requests. */
async function receiver(delayMs = 0) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => setTimeout(() => res.writeHead(200).end("ok"), delayMs));
  });
  let connections = 0;
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    connections += 1;
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  closers.push(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { port, url: `http://127.0.0.1:${port}/hook`, connections: () => connections, open: () => open.size };
}

function transport(options: Partial<Parameters<typeof createNodeTransport>[0]> & { allow: string }): NodeTransport {
  const { allow, ...rest } = options;
  const made = createNodeTransport({ allowlist: parseWebhookAllowlist(allow), ...rest });
  closers.push(() => made.close());
  return made;
}

const post = (url: string): OutboundRequest => ({ url, method: "POST", headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 2_000 });
const until = async (condition: () => boolean) => {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 200) throw new Error("condition not met within 2 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe("the webhook transport's kept-alive sockets", () => {
  it("sends one attempt after another on one connection", async () => {
    const target = await receiver();
    const send = transport({ allow: `127.0.0.1:${target.port}` });
    for (let n = 0; n < 20; n++) expect((await send.send(post(target.url))).status).toBe(200);
    expect(target.connections()).toBe(1);
  });

  it("never opens more than socketsPerTarget connections to one target, however many attempts run at once", async () => {
    const target = await receiver(20);
    const send = transport({ allow: `127.0.0.1:${target.port}`, socketsPerTarget: 3 });
    const answers = await Promise.all(Array.from({ length: 30 }, () => send.send(post(target.url))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(target.connections()).toBe(3);
  });

  it("closes a socket idle for idleTimeoutMs, and connects anew for the next attempt", async () => {
    const target = await receiver();
    const send = transport({ allow: `127.0.0.1:${target.port}`, idleTimeoutMs: 100 });
    await send.send(post(target.url));
    expect(target.open()).toBe(1);
    await until(() => target.open() === 0);
    await send.send(post(target.url));
    expect(target.connections()).toBe(2);
  });

  it("closes every kept socket on close()", async () => {
    const target = await receiver();
    const send = transport({ allow: `127.0.0.1:${target.port}` });
    await Promise.all([send.send(post(target.url)), send.send(post(target.url))]);
    expect(target.open()).toBe(2);
    send.close();
    await until(() => target.open() === 0);
  });

  it("checks every new connection: a name rebound after its first connection is refused on the next one, which never connects", async () => {
    const target = await receiver(50);
    let lookups = 0;
    // The first answer is the allowed address; every later one a loopback address not allowed.
    const rebinding: LookupFunction = (_host, _options, callback) => {
      lookups += 1;
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: lookups === 1 ? "127.0.0.1" : "127.0.0.2", family: 4 }]);
    };
    const send = transport({ allow: `127.0.0.1:${target.port}`, lookup: rebinding });
    const url = `http://rebind.example.com:${target.port}/hook`;
    expect((await send.send(post(url))).status).toBe(200);
    // A kept socket was checked when it connected: reused without asking DNS again.
    expect((await send.send(post(url))).status).toBe(200);
    expect(lookups).toBe(1);
    // Two at once: one takes the kept socket, the other needs a new connection, checked and refused.
    const [first, second] = await Promise.allSettled([send.send(post(url)), send.send(post(url))]);
    expect([first.status, second.status].sort()).toEqual(["fulfilled", "rejected"]);
    const refused = [first, second].find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ errorClass: "blocked" });
    expect(lookups).toBe(2);
    expect(target.connections()).toBe(1);
  });

  it("opens no more than `sockets` connections in all: a new target's connection waits for one to close", async () => {
    const first = await receiver();
    const second = await receiver();
    const send = transport({ allow: `127.0.0.1:${first.port},127.0.0.1:${second.port}`, sockets: 1, idleTimeoutMs: 150 });
    expect((await send.send(post(first.url))).status).toBe(200);
    const started = performance.now();
    expect((await send.send(post(second.url))).status).toBe(200);
    // The second target connected only once the first one's kept socket had been closed as idle.
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    expect(first.open()).toBe(0);
    expect([first.connections(), second.connections()]).toEqual([1, 1]);
  });

  it("times an attempt out at its deadline even while it waits for a connection", async () => {
    const first = await receiver();
    const second = await receiver();
    const send = transport({ allow: `127.0.0.1:${first.port},127.0.0.1:${second.port}`, sockets: 1, idleTimeoutMs: 3_000 });
    await send.send(post(first.url));
    const started = performance.now();
    await expect(send.send({ ...post(second.url), timeoutMs: 150 })).rejects.toMatchObject({ errorClass: "timeout" });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(second.connections()).toBe(0);
  });

  it.each([
    ["resets", (socket: Socket) => socket.resetAndDestroy()],
    ["closes", (socket: Socket) => socket.end()],
  ])("sends again, once, on a new connection when the receiver %s a kept socket before answering", async (_how, drop) => {
    // A raw receiver: answers the first request of each connection with keep-alive, resets the connection on its second.
    let connections = 0;
    let answered = 0;
    const server = net.createServer((socket) => {
      connections += 1;
      let requests = 0;
      socket.on("data", (chunk) => {
        if (!chunk.toString("latin1").includes("\r\n\r\n")) return;
        requests += 1;
        if (requests === 1) {
          answered += 1;
          socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=30\r\n\r\nok");
        } else drop(socket);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const send = transport({ allow: `127.0.0.1:${port}` });
    const url = `http://127.0.0.1:${port}/hook`;
    expect((await send.send(post(url))).status).toBe(200);
    expect((await send.send(post(url))).status).toBe(200);
    expect(connections).toBe(2);
    expect(answered).toBe(2);
  });
});
