import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { LookupFunction } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeTransport } from "../../adapters/outbound/node-transport.js";
import type { OutboundRequest } from "../../core/ports/outbound.js";
import { parseWebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { selfSignedCertificate } from "../helpers/syslog-receiver.js";

/** A loopback receiver that counts every connection, so a refused send provably never connected. */
async function receiver(handler: http.RequestListener) {
  const server = http.createServer(handler);
  let connections = 0;
  server.on("connection", () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const post = (url: string, extra: Partial<OutboundRequest> = {}): OutboundRequest => ({
  url, method: "POST", headers: { "content-type": "application/json" }, body: '{"hello":"world"}', timeoutMs: 2_000, ...extra,
});

describe("the node:http webhook transport", () => {
  let ok: Awaited<ReturnType<typeof receiver>>;
  let redirect: Awaited<ReturnType<typeof receiver>>;
  let silent: Awaited<ReturnType<typeof receiver>>;
  const received: { method?: string; body: string; headers: http.IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    ok = await receiver((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ method: req.method, body, headers: req.headers });
        res.writeHead(req.url === "/busy" ? 429 : 200, { "retry-after": "7" });
        res.end("x".repeat(10_000));
      });
    });
    redirect = await receiver((_req, res) => { res.writeHead(302, { location: `http://127.0.0.1:${ok.port}/elsewhere` }); res.end(); });
    silent = await receiver(() => {}); // never answers
  });
  afterAll(async () => {
    await Promise.all([ok.close(), redirect.close(), silent.close()]);
  });

  const allowing = (...ports: number[]) => createNodeTransport({ allowlist: parseWebhookAllowlist(ports.map((p) => `127.0.0.1:${p}`).join(",")), maxResponseBytes: 1024 });

  it("delivers to an allowed loopback receiver, keeping a truncated body and Retry-After", async () => {
    const answer = await allowing(ok.port).send(post(`http://127.0.0.1:${ok.port}/in`, { method: "PUT", headers: { "x-custom": "1" } }));
    expect(answer).toMatchObject({ status: 200, retryAfter: "7" });
    expect(answer.body).toHaveLength(1024);
    expect(received.at(-1)).toMatchObject({ method: "PUT", body: '{"hello":"world"}' });
    expect(received.at(-1)!.headers["x-custom"]).toBe("1");
    expect((await allowing(ok.port).send(post(`http://127.0.0.1:${ok.port}/busy`))).status).toBe(429);
  });

  it("refuses a loopback receiver that was not allowed, by any spelling, without connecting", async () => {
    const before = ok.connections();
    const transport = createNodeTransport({ allowlist: parseWebhookAllowlist("") });
    for (const host of ["127.0.0.1", "0x7f.1", "2130706433", "[::ffff:127.0.0.1]", "localhost"]) {
      await expect(transport.send(post(`http://${host}:${ok.port}/in`))).rejects.toMatchObject({ errorClass: "blocked" });
    }
    // Allowed on another port only: still refused.
    await expect(allowing(ok.port + 1).send(post(`http://127.0.0.1:${ok.port}/in`))).rejects.toMatchObject({ errorClass: "blocked" });
    expect(ok.connections()).toBe(before);
  });

  it("refuses a name that resolves to a forbidden address (DNS rebinding), without connecting", async () => {
    const before = ok.connections();
    const rebinding: LookupFunction = (_host, _options, callback) => (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
    const transport = createNodeTransport({ allowlist: parseWebhookAllowlist(""), lookup: rebinding });
    await expect(transport.send(post(`http://rebind.example.com:${ok.port}/in`))).rejects.toMatchObject({ errorClass: "blocked" });
    expect(ok.connections()).toBe(before);
  });

  it("returns redirects without following them", async () => {
    const before = ok.connections();
    const answer = await allowing(redirect.port, ok.port).send(post(`http://127.0.0.1:${redirect.port}/`));
    expect(answer.status).toBe(302);
    expect(ok.connections()).toBe(before);
  });

  it("verifies a receiver's certificate: one it cannot trust is a network failure, met once, never sent again", async () => {
    const server = https.createServer(selfSignedCertificate(), (_req, res) => res.writeHead(200).end("ok"));
    let connections = 0;
    server.on("connection", () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const transport = allowing(port);
      await expect(transport.send(post(`https://127.0.0.1:${port}/in`))).rejects.toMatchObject({ errorClass: "network", message: "DEPTH_ZERO_SELF_SIGNED_CERT" });
      expect(connections).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("classifies timeouts and network failures", async () => {
    await expect(allowing(silent.port).send(post(`http://127.0.0.1:${silent.port}/`, { timeoutMs: 200 }))).rejects.toMatchObject({ errorClass: "timeout" });
    const closed = await receiver(() => {});
    const port = closed.port;
    await closed.close();
    await expect(allowing(port).send(post(`http://127.0.0.1:${port}/`))).rejects.toMatchObject({ errorClass: "network" });
  });
});
